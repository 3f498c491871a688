import { describe, expect, test } from "vitest";
import { fuseRelevance, type RankedHit } from "./fuse-relevance.ts";

const hit = (id: string, score: number): RankedHit => ({ id, score });
const ids = [
  "00000000-0000-4000-8000-00000000000a",
  "00000000-0000-4000-8000-00000000000b",
  "00000000-0000-4000-8000-00000000000c",
] as const;
const [a, b, c] = ids;

describe("fuseRelevance", () => {
  test("combines max-normalised scores with the vector weight and keeps each retriever's rank and score", () => {
    const fused = fuseRelevance([hit(a, 4), hit(b, 2)], [hit(b, 0.9), hit(c, 0.45)], 10, {
      vectorWeight: 0.5,
    });
    expect(fused.map((x) => x.id)).toEqual([b, a, c]);
    expect(fused[0]).toMatchObject({ lexical: { rank: 2, score: 2 }, vector: { rank: 1, score: 0.9 } });
    expect(fused[0]?.fused).toBeCloseTo(0.5 * 0.5 + 0.5 * 1, 12);
    expect(fused[1]?.fused).toBeCloseTo(0.5, 12);
    expect(fused[2]).toMatchObject({ lexical: null, vector: { rank: 2 }, fused: 0.25 });
  });

  test("a weak embedder moves little; a retriever with nothing leaves the other alone", () => {
    const weak = fuseRelevance([hit(a, 4), hit(b, 3)], [hit(b, 0.2), hit(a, 0.1)], 10, { vectorWeight: 0.1 });
    expect(weak.map((x) => x.id)).toEqual([a, b]);
    const lexicalOnly = fuseRelevance([hit(a, 4), hit(b, 2)], [], 10, { vectorWeight: 0.9 });
    expect(lexicalOnly.map((x) => x.fused)).toEqual([1, 0.5]);
    const vectorOnly = fuseRelevance(null, [hit(c, 0.5)], 10, { vectorWeight: 0 });
    expect(vectorOnly[0]?.fused).toBe(1);
  });

  test("scores what only the vector retriever found by its BM25 when it can", () => {
    const fused = fuseRelevance([hit(a, 4)], [hit(b, 1)], 10, { vectorWeight: 0.5, lexicalScoreOf: () => 4 });
    // b: as good lexically as a (its BM25 computed here), and the best vector match.
    expect(fused.map((x) => x.id)).toEqual([b, a]);
    expect(fused.map((x) => x.fused)).toEqual([1, 0.5]);
  });

  test("breaks ties by lexical rank, then vector rank, then id; cuts at the limit", () => {
    const fused = fuseRelevance([hit(c, 1)], [hit(a, 1), hit(c, 1)], 2, { vectorWeight: 0.5 });
    expect(fused.map((x) => x.id)).toEqual([c, a]);
    expect(fuseRelevance(null, null, 5, { vectorWeight: 0.5 })).toEqual([]);
  });
});
