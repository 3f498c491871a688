import type { CandidateScores } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { aboveFloor } from "./relevance-floor.ts";

const candidate = (id: string, coverage: number | undefined, cosine: number | null): CandidateScores => ({
  id,
  lexical: coverage ? { rank: 1, score: 1 } : null,
  vector: cosine === null ? null : { rank: 1, score: cosine },
  fused: 0,
  ...(coverage === undefined ? {} : { coverage }),
});
const options = { floor: 0.15, closeSimilarity: 0.5 };

describe("the relevance floor", () => {
  it("keeps what holds enough of the query or is very close, drops the rest", () => {
    const { kept, dropped } = aboveFloor(
      [
        candidate("answers", 0.6, 0.3),
        candidate("one-rare-word", 0.2, null),
        candidate("paraphrase", 0, 0.7),
        candidate("unrelated", 0.05, 0.2),
        candidate("nothing", 0, 0.09),
      ],
      options,
    );
    expect(kept.map((c) => c.id)).toEqual(["answers", "one-rare-word", "paraphrase"]);
    expect(dropped).toBe(2);
  });

  it("keeps an episode neighbour of a kept memory, and close matches when no word matched", () => {
    const neighbour = { ...candidate("next-turn", 0, null), episode: { from: "answers", boost: 0.3 } };
    expect(aboveFloor([candidate("answers", 1, null), neighbour], options).kept).toHaveLength(2);
    const typos = aboveFloor([candidate("misspelt", 0, 0.27), candidate("far", 0, 0.1)], options);
    expect(typos.kept.map((c) => c.id)).toEqual(["misspelt"]);
  });

  it("does not judge what was not scored by its words (a vector-only search)", () => {
    expect(aboveFloor([candidate("v", undefined, 0.1)], options).kept).toHaveLength(1);
  });
});
