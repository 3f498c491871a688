import type { CandidateScores } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { passesFloor, splitAtFloor } from "./relevance-floor.ts";

const candidate = (id: string, coverage: number | undefined, cosine: number | null): CandidateScores => ({
  id,
  lexical: coverage ? { rank: 1, score: 1 } : null,
  vector: cosine === null ? null : { rank: 1, score: cosine },
  fused: 0,
  ...(coverage === undefined ? {} : { coverage }),
});
const options = { floor: 0.15, closeSimilarity: 0.5 };
const ids = (list: readonly CandidateScores[]) => list.map((c) => c.id);

describe("the relevance floor", () => {
  it("keeps what holds enough of the query or is very close, and sets the rest apart in order", () => {
    const { above, below } = splitAtFloor(
      [
        candidate("answers", 0.6, 0.3),
        candidate("unrelated", 0.05, 0.2),
        candidate("one-rare-word", 0.2, null),
        candidate("paraphrase", 0, 0.7),
        candidate("nothing", 0, 0.09),
      ],
      options,
    );
    expect(ids(above)).toEqual(["answers", "one-rare-word", "paraphrase"]);
    expect(ids(below)).toEqual(["unrelated", "nothing"]);
  });

  it("keeps an episode neighbour of a kept memory, and close matches when no word matched", () => {
    const neighbour = { ...candidate("next-turn", 0, null), episode: { from: "answers", boost: 0.3 } };
    expect(splitAtFloor([candidate("answers", 1, null), neighbour], options).above).toHaveLength(2);
    const typos = splitAtFloor([candidate("misspelt", 0, 0.27), candidate("far", 0, 0.1)], options);
    expect(ids(typos.above)).toEqual(["misspelt"]);
  });

  it("does not judge what was not scored by its words (a vector-only search)", () => {
    expect(splitAtFloor([candidate("v", undefined, 0.1)], options).above).toHaveLength(1);
  });

  it("returns a marked candidate only when it meets at least half of what the question asks", () => {
    const marked = { belowFloor: true as const };
    expect(passesFloor({}, undefined)).toBe(true);
    expect(passesFloor(marked, undefined)).toBe(false);
    expect(passesFloor(marked, 0.34)).toBe(false);
    expect(passesFloor(marked, 0.5)).toBe(true);
    expect(passesFloor(marked, 1)).toBe(true);
  });
});
