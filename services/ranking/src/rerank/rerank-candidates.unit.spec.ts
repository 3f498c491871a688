import type { Candidate, MemoryDocument } from "@cairn/contracts";
import { defaultRankingWeights, noMemorySignals } from "@cairn/contracts";
import { memoryDocument } from "@cairn/memory-model/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jaccard, scoringTerms } from "../text/analyze-text.ts";
import { diversify, diversityFactor } from "./diversify.ts";
import { relevanceOf } from "./relevance.ts";
import { type RerankInput, rerankCandidates } from "./rerank-candidates.ts";

const now = new Date("2025-06-01T00:00:00Z");

function candidate(
  id: string,
  content: string,
  fused: number,
  extra: Partial<MemoryDocument> = {},
): Candidate {
  const at = now.toISOString();
  const document = memoryDocument({
    id,
    slot: `slot-${id}`,
    content,
    createdAt: at,
    updatedAt: at,
    ...extra,
  });
  return { id, document, lexical: { rank: 1, score: fused }, vector: null, fused };
}

/**
 * Re-ranks without signals, with the default weights, unless `input` gives them; each memory's
 * terms are its content's (as ranking's cards hold them).
 */
function rerank(candidates: Candidate[], input: Partial<RerankInput> & Pick<RerankInput, "k" | "explain">) {
  const memories = new Map(
    candidates.map(({ document }) => [
      document.id,
      {
        terms: scoringTerms(document.title, document.content),
        updatedAt: document.updatedAt,
        sentiment: document.sentiment,
      },
    ]),
  );
  return rerankCandidates({
    candidates: candidates.map(({ document: _document, ...scores }) => scores),
    memoryOf: (id) => memories.get(id),
    signals: new Map(),
    weights: defaultRankingWeights,
    now,
    ...input,
  });
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** Candidates `uuid(1)`, `uuid(2)`, … of these contents and fused scores. */
const inOrder = (...entries: [content: string, fused: number][]) =>
  entries.map(([content, fused], i) => candidate(uuid(i + 1), content, fused));

describe("rerankCandidates", () => {
  it("keeps retrieval order when no signal differs, and explains every factor", () => {
    const candidates = inOrder(["alpha beta", 0.03], ["gamma delta", 0.02], ["epsilon zeta", 0.01]);
    const results = rerank(candidates, { k: 10, explain: true });
    expect(results.map((r) => r.id)).toEqual([uuid(1), uuid(2), uuid(3)]);
    expect(results[0]?.factors).toEqual({
      relevance: 1,
      decay: 1,
      sentiment: 1,
      feedback: 1,
      hotTopic: 1,
      attention: 1,
      depth: 1,
      intent: 1,
      diversity: 1,
    });
    expect(results[1]?.score).toBeCloseTo(2 / 3);
  });

  it("lets useful feedback lift a slightly less relevant memory", () => {
    const candidates = inOrder(["alpha", 0.031], ["beta", 0.03]);
    const results = rerank(candidates, {
      signals: new Map([[uuid(2), { ...noMemorySignals, useful: 2 }]]),
      k: 2,
      explain: false,
    });
    expect(results.map((r) => r.id)).toEqual([uuid(2), uuid(1)]);
    expect(results[0]?.factors).toBeUndefined();
  });

  it("prefers the fresher of two equally relevant memories, unless decay is off", () => {
    const old = candidate(uuid(1), "alpha", 0.03, { updatedAt: "2025-01-01T00:00:00Z" });
    const fresh = candidate(uuid(2), "beta", 0.03, { updatedAt: "2025-05-30T00:00:00Z" });
    const input = { k: 2, explain: false };
    expect(rerank([old, fresh], input).map((r) => r.id)).toEqual([uuid(2), uuid(1)]);
    const off = { ...defaultRankingWeights, decay: 1 };
    expect(rerank([old, fresh], { ...input, weights: off }).map((r) => r.id)).toEqual([uuid(1), uuid(2)]);
  });

  it("counts a recent deliberate read as freshness", () => {
    const read = candidate(uuid(1), "alpha", 0.03, { updatedAt: "2025-01-01T00:00:00Z" });
    const other = candidate(uuid(2), "beta", 0.03, { updatedAt: "2025-03-01T00:00:00Z" });
    const results = rerank([read, other], {
      signals: new Map([[uuid(1), { ...noMemorySignals, reads: 1, lastReadAt: "2025-05-31T00:00:00Z" }]]),
      k: 2,
      explain: true,
    });
    expect(results[0]?.id).toBe(uuid(1));
  });

  it("lets a memory that fits what the question asks pass a slightly more relevant one, within the intent weight", () => {
    const candidates = inOrder(["alpha", 0.03], ["beta", 0.02]);
    const fitting = {
      asks: "time" as const,
      times: [],
      names: ["Caroline"],
      answers: true,
      inTime: null,
      fit: 1,
    };
    const intentOf = (id: string) =>
      id === uuid(2) ? fitting : { ...fitting, names: [], answers: false, fit: 0 };
    const results = rerank(candidates, { k: 2, explain: true, intentOf });
    expect(results.map((r) => r.id)).toEqual([uuid(2), uuid(1)]);
    expect(results[0]?.factors?.intent).toBe(defaultRankingWeights.intent);
    expect(results[0]?.intent).toEqual(fitting);
    expect(results[1]?.factors?.intent).toBe(1);
    // A weight of 1 turns it off; a much more relevant memory keeps its place.
    const off = rerank(candidates, {
      k: 2,
      explain: false,
      intentOf,
      weights: { ...defaultRankingWeights, intent: 1 },
    });
    expect(off.map((r) => r.id)).toEqual([uuid(1), uuid(2)]);
    const far = rerank(inOrder(["alpha", 0.03], ["beta", 0.01]), { k: 2, explain: false, intentOf });
    expect(far.map((r) => r.id)).toEqual([uuid(1), uuid(2)]);
  });

  it("returns a memory search marked below the relevance floor only when it fits what the question asks", () => {
    const [kept, speakerLine, filler] = inOrder(["alpha", 0.5], ["beta", 0.02], ["gamma", 0.03]);
    const below = (c: Candidate | undefined): Candidate => ({ ...(c as Candidate), belowFloor: true });
    const fit = (share: number) => ({
      asks: null,
      times: [],
      names: share > 0 ? ["Jon"] : [],
      answers: null,
      inTime: share >= 1 ? true : null,
      fit: share,
    });
    const intentOf = (id: string) => (id === uuid(2) ? fit(1) : fit(0));
    const results = rerank([kept as Candidate, below(speakerLine), below(filler)], {
      k: 3,
      explain: false,
      intentOf,
    });
    expect(results.map((r) => r.id)).toEqual([uuid(1), uuid(2)]);
    expect(results[1]?.belowFloor).toBe(true);
    // Meeting less than half of what it asks is not enough.
    const weak = rerank([kept as Candidate, below(speakerLine)], {
      k: 3,
      explain: false,
      intentOf: () => fit(0.34),
    });
    expect(weak.map((r) => r.id)).toEqual([uuid(1)]);
  });

  it("does not let near-duplicates fill the list", () => {
    const candidates = inOrder(
      ["deploy the api with blue green switch on friday", 0.033],
      ["deploy the api with blue green switch on friday", 0.032],
      ["database migrations run before the deploy", 0.031],
    );
    const results = rerank(candidates, { k: 2, explain: true });
    expect(results.map((r) => r.id)).toEqual([uuid(1), uuid(3)]);
  });
});

describe("relevance", () => {
  it("starts from search's fused relevance, relative to the best, and explains each retriever's part", () => {
    const a = {
      ...candidate(uuid(1), "We moved the staging database", 0.4),
      vector: { rank: 1, score: 0.8 },
    };
    const b = {
      ...candidate(uuid(2), "Staging databases are rebuilt weekly", 0.8),
      lexical: { rank: 1, score: 9 },
    };
    const c = { ...candidate(uuid(3), "Lunch is at noon", 0.1), lexical: null };
    const results = rerank([a, b, c], {
      weights: { ...defaultRankingWeights, sentiment: 1, hotTopic: 1, attention: 1, depth: 1, decay: 1 },
      k: 3,
      explain: true,
    });
    expect(results.map((r) => r.id)).toEqual([uuid(2), uuid(1), uuid(3)]);
    expect(results.map((r) => r.factors?.relevance)).toEqual([1, 0.5, 0.125]);
    expect(results[0]?.relevance).toEqual({ lexical: 1, vector: 0 });
    expect(results[1]?.relevance?.vector).toBe(1);
  });

  it("takes every candidate as relevant when nothing was scored (a listing)", () => {
    const parts = relevanceOf(
      [candidate(uuid(1), "a", 0), candidate(uuid(2), "b", 0)].map(
        ({ document: _document, ...scores }) => scores,
      ),
    );
    expect(parts.map((p) => p.relevance)).toEqual([1, 1]);
  });
});

describe("diversify", () => {
  it("leaves dissimilar items in score order", () => {
    const items = [
      { score: 3, terms: ["a"] },
      { score: 2, terms: ["b"] },
      { score: 1, terms: ["c"] },
    ];
    expect(diversify(items, 3).map((c) => c.index)).toEqual([0, 1, 2]);
  });
  it("chooses as comparing every candidate with every chosen one does", () => {
    // The plain greedy MMR: each round, every remaining candidate against every chosen one.
    const everyPair = (items: { score: number; terms: string[] }[], k: number) => {
      const sets = items.map((item) => new Set(item.terms));
      const remaining = new Set(items.map((_, i) => i));
      const chosen: { index: number; diversity: number }[] = [];
      const maxSim = items.map(() => 0);
      while (chosen.length < k && remaining.size > 0) {
        let best: { index: number; value: number; diversity: number } | undefined;
        for (const i of remaining) {
          const diversity = diversityFactor(maxSim[i] ?? 0);
          const value = (items[i]?.score ?? 0) * diversity;
          if (!best || value > best.value || (value === best.value && i < best.index))
            best = { index: i, value, diversity };
        }
        if (!best) break;
        remaining.delete(best.index);
        chosen.push({ index: best.index, diversity: best.diversity });
        for (const i of remaining)
          maxSim[i] = Math.max(
            maxSim[i] ?? 0,
            jaccard(sets[best.index] as Set<string>, sets[i] as Set<string>),
          );
      }
      return chosen;
    };
    // Few distinct terms and scores, so near-duplicates, ties and negative scores are common.
    const item = fc.record({
      score: fc.oneof(fc.constantFrom(0, 1, 0.5, -0.5), fc.double({ min: -2, max: 2, noNaN: true })),
      terms: fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), fc.integer({ min: 1, max: 12 }), (items, k) => {
        expect(diversify(items, k)).toEqual(everyPair(items, k));
      }),
      { numRuns: 2000 },
    );
  });
  it("penalises only above the similarity threshold", () => {
    expect(diversityFactor(0.3)).toBe(1);
    expect(diversityFactor(1)).toBeCloseTo(0.1);
  });
});
