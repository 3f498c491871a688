import fc from "fast-check";
import { Command } from "ioredis";
import { describe, expect, test } from "vitest";
import { encodeRequest } from "./encoded-command.ts";

// Any text a memory may hold (every script, surrogate pairs, line breaks, RESP's own markers),
// numbers of every kind, and empty strings.
const argument = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", "\r\n", "$3", "*2\r\n$1\r\nx", "naïve café", "记忆", "🪨🪨"),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** What ioredis itself sends for a command, as bytes. */
function ioredisBytes(args: readonly (string | number)[]): Buffer {
  const [name, ...rest] = args;
  const written = new Command(String(name), rest).toWritable({});
  return typeof written === "string" ? Buffer.from(written) : written;
}

describe("a command encoded in one pass", () => {
  test("is byte for byte what ioredis sends for the same arguments, however they are split into parts", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(argument, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
        (parts) => {
          const args = ["EVAL", ...parts.flat()];
          expect(Buffer.from(encodeRequest([["EVAL"], ...parts]))).toEqual(ioredisBytes(args));
        },
      ),
    );
  });
});
