import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { episodePlace, matchPayload, parseMatchPayload } from "./lexical-index.ts";

// Terms as analysis could never make them too (separators, spaces inside, odd characters): the
// payload gives back exactly what it was given.
const term = fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom("a|b", "||", "日本語", "x y", "0"));
const episode = fc.option(
  fc.record({
    // An episode id is never empty (the contract's); odd characters are.
    id: fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom("ep|1", "ünï", " ")),
    // -0 is read back as 0, the same place.
    order: fc.option(
      fc.oneof(
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((o) => !Object.is(o, -0)),
      ),
      { nil: undefined },
    ),
  }),
  { nil: null },
);

describe("a document's match payload", () => {
  test("gives back its terms, their count and its episode place", () => {
    fc.assert(
      fc.property(fc.array(term, { maxLength: 30 }), episode, (terms, ep) => {
        const doc = {
          createdAt: "2026-11-30T10:00:00.000Z",
          episode: ep === null ? null : { id: ep.id, ...(ep.order === undefined ? {} : { order: ep.order }) },
        } as Parameters<typeof matchPayload>[0];
        expect(parseMatchPayload(matchPayload(doc, terms))).toEqual({
          terms: terms.join(" "),
          termCount: terms.length,
          place: episodePlace(doc),
        });
      }),
      { numRuns: 1000 },
    );
  });

  test("what is not a payload reads as none", () => {
    for (const value of [null, undefined, "", "terms only", "3|x", "x|1|ab|terms", "-1|||a"])
      expect(parseMatchPayload(value)).toBeNull();
  });
});
