import { rrfK } from "@cairn/contracts";
import { memoryRecord } from "@cairn/projection-runtime/testing";
import { describe, expect, test } from "vitest";
import { fuseByReciprocalRank, type RankedHit } from "./reciprocal-rank-fusion.ts";

const doc = (id: string, version = 1) =>
  ({
    ...memoryRecord({ id, agent: "a" }),
    status: "active",
    tenant: "t",
    invalidAt: null,
    verifiedAt: null,
    supersededBy: null,
    promotedTo: null,
    version,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  }) as RankedHit["document"];
const hit = (id: string, score: number, version = 1): RankedHit => ({
  id,
  score,
  document: doc(id, version),
});
const ids = [
  "00000000-0000-4000-8000-00000000000a",
  "00000000-0000-4000-8000-00000000000b",
  "00000000-0000-4000-8000-00000000000c",
] as const;
const [a, b, c] = ids;

describe("fuseByReciprocalRank", () => {
  test("sums 1/(k + rank) over the retrievers that found a memory and keeps each one's rank and score", () => {
    const fused = fuseByReciprocalRank([hit(a, 3), hit(b, 2)], [hit(b, 0.9), hit(c, 0.8)], 10);
    expect(fused.map((x) => x.id)).toEqual([b, a, c]);
    expect(fused[0]).toMatchObject({ lexical: { rank: 2, score: 2 }, vector: { rank: 1, score: 0.9 } });
    expect(fused[0]?.fused).toBeCloseTo(1 / (rrfK + 2) + 1 / (rrfK + 1), 12);
    expect(fused[2]).toMatchObject({ lexical: null, vector: { rank: 2 } });
  });

  test("breaks ties by lexical rank, then id; keeps the newer document; cuts at the limit", () => {
    const fused = fuseByReciprocalRank([hit(c, 1)], [hit(a, 1, 1), hit(c, 1, 3)], 2);
    expect(fused.map((x) => x.id)).toEqual([c, a]);
    expect(fused[0]?.document.version).toBe(3);
    const tie = fuseByReciprocalRank(null, [hit(b, 1)], 5).concat(fuseByReciprocalRank(null, [hit(a, 1)], 5));
    expect(tie).toHaveLength(2);
    expect(fuseByReciprocalRank(null, null, 5)).toEqual([]);
  });
});
