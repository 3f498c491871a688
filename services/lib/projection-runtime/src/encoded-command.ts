// A Redis command encoded here, in one pass, instead of by ioredis argument by argument. A
// projection's commit is one script call whose arguments are every command of a batch: a
// lexical rebuild batch of 500 documents is about 33,000 arguments. ioredis copies them into a
// flattened array, turns each into a string, and writes each as its own piece of the request;
// here each command's arguments are written straight from the commands into one request.
// The command is still sent, queued and answered by ioredis: only its encoding is done here.
import { Command, type Redis } from "ioredis";

type Argument = string | number;

/** A command whose request (RESP) was encoded when it was made. */
class EncodedCommand extends Command {
  readonly #request: string;
  constructor(name: string, request: string) {
    // Replies as text, as ioredis's own calls answer them.
    super(name, [], { replyEncoding: "utf8" });
    this.#request = request;
  }
  override toWritable(): string {
    return this.#request;
  }
}

/** One argument as a RESP bulk string. */
function bulk(value: Argument): string {
  const text = typeof value === "string" ? value : String(value);
  return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

/** The RESP request of a command given in parts (the arguments of all parts, in order). */
export function encodeRequest(parts: readonly (readonly Argument[])[]): string {
  let count = 0;
  for (const part of parts) count += part.length;
  let request = `*${count}\r\n`;
  for (const part of parts) for (const value of part) request += bulk(value);
  return request;
}

/**
 * Sends the command whose arguments are `parts` one after another (the first argument is its
 * name) on `redis`, and answers its reply as `redis.call` would.
 */
export function sendEncoded(redis: Redis, parts: readonly (readonly Argument[])[]): Promise<unknown> {
  const name = String(parts[0]?.[0] ?? "").toLowerCase();
  const command = new EncodedCommand(name, encodeRequest(parts));
  void redis.sendCommand(command);
  return command.promise;
}
