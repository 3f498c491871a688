import type { Candidate, MemoryDocument } from "@cairn/contracts";
import { defaultRankingWeights } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { topicTerms } from "../text/analyze-text.ts";
import { diversify, diversityFactor } from "./diversify.ts";
import { queryWeights, relevanceOf } from "./lexical-relevance.ts";
import { noSignals, rerankCandidates } from "./rerank-candidates.ts";

const now = new Date("2025-06-01T00:00:00Z");

function candidate(
  id: string,
  content: string,
  fused: number,
  extra: Partial<MemoryDocument> = {},
): Candidate {
  const document: MemoryDocument = {
    id,
    tier: "memory",
    status: "active",
    slot: `slot-${id}`,
    kind: "note",
    content,
    title: "",
    tags: [],
    aliases: [],
    keys: [],
    entities: [],
    links: [],
    sentiment: 0,
    scope: "team",
    tenant: "t",
    agent: "a",
    project: null,
    source: null,
    validFrom: null,
    invalidAt: null,
    verifiedAt: null,
    supersedes: null,
    supersededBy: null,
    promotedTo: null,
    promotedFrom: null,
    version: 1,
    contentHash: id,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    ...extra,
  };
  return { id, document, lexical: { rank: 1, score: fused }, vector: null, fused };
}

const noQuery = { query: [], stats: { documents: 0, averageLength: 0, documentFrequency: new Map() } };

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

describe("rerankCandidates", () => {
  it("keeps retrieval order when no signal differs, and explains every factor", () => {
    const candidates = [
      candidate(uuid(1), "alpha beta", 0.03),
      candidate(uuid(2), "gamma delta", 0.02),
      candidate(uuid(3), "epsilon zeta", 0.01),
    ];
    const results = rerankCandidates({
      ...noQuery,
      candidates,
      signals: new Map(),
      weights: defaultRankingWeights,
      now,
      k: 10,
      explain: true,
    });
    expect(results.map((r) => r.id)).toEqual([uuid(1), uuid(2), uuid(3)]);
    expect(results[0]?.factors).toEqual({
      relevance: 1,
      decay: 1,
      sentiment: 1,
      feedback: 1,
      hotTopic: 1,
      attention: 1,
      depth: 1,
      diversity: 1,
    });
    expect(results[1]?.score).toBeCloseTo(2 / 3);
  });

  it("lets useful feedback lift a slightly less relevant memory", () => {
    const candidates = [candidate(uuid(1), "alpha", 0.031), candidate(uuid(2), "beta", 0.03)];
    const results = rerankCandidates({
      ...noQuery,
      candidates,
      signals: new Map([[uuid(2), { ...noSignals, useful: 2 }]]),
      weights: defaultRankingWeights,
      now,
      k: 2,
      explain: false,
    });
    expect(results.map((r) => r.id)).toEqual([uuid(2), uuid(1)]);
    expect(results[0]?.factors).toBeUndefined();
  });

  it("prefers the fresher of two equally relevant memories, unless decay is off", () => {
    const old = candidate(uuid(1), "alpha", 0.03, { updatedAt: "2025-01-01T00:00:00Z" });
    const fresh = candidate(uuid(2), "beta", 0.03, { updatedAt: "2025-05-30T00:00:00Z" });
    const input = { ...noQuery, candidates: [old, fresh], signals: new Map(), now, k: 2, explain: false };
    expect(rerankCandidates({ ...input, weights: defaultRankingWeights }).map((r) => r.id)).toEqual([
      uuid(2),
      uuid(1),
    ]);
    const off = { ...defaultRankingWeights, decay: 1 };
    expect(rerankCandidates({ ...input, weights: off }).map((r) => r.id)).toEqual([uuid(1), uuid(2)]);
  });

  it("counts a recent deliberate read as freshness", () => {
    const read = candidate(uuid(1), "alpha", 0.03, { updatedAt: "2025-01-01T00:00:00Z" });
    const other = candidate(uuid(2), "beta", 0.03, { updatedAt: "2025-03-01T00:00:00Z" });
    const results = rerankCandidates({
      ...noQuery,
      candidates: [read, other],
      signals: new Map([[uuid(1), { ...noSignals, reads: 1, lastReadAt: "2025-05-31T00:00:00Z" }]]),
      weights: defaultRankingWeights,
      now,
      k: 2,
      explain: true,
    });
    expect(results[0]?.id).toBe(uuid(1));
  });

  it("does not let near-duplicates fill the list", () => {
    const candidates = [
      candidate(uuid(1), "deploy the api with blue green switch on friday", 0.033),
      candidate(uuid(2), "deploy the api with blue green switch on friday", 0.032),
      candidate(uuid(3), "database migrations run before the deploy", 0.031),
    ];
    const results = rerankCandidates({
      ...noQuery,
      candidates,
      signals: new Map(),
      weights: defaultRankingWeights,
      now,
      k: 2,
      explain: true,
    });
    expect(results.map((r) => r.id)).toEqual([uuid(1), uuid(3)]);
  });
});

describe("relevance", () => {
  it("re-scores lexically (stemmed BM25) and fuses with vector similarity", () => {
    const a = candidate(uuid(1), "We moved the staging database to a new host", 0.033);
    const b = candidate(uuid(2), "Staging databases are rebuilt weekly", 0.032);
    const c = candidate(uuid(3), "Lunch is at noon", 0.031);
    const stats = {
      documents: 100,
      averageLength: 5,
      documentFrequency: new Map([
        ["stage", 5],
        ["databas", 10],
        ["rebuilt", 2],
      ]),
    };
    const query = queryWeights(topicTerms("when are the staging databases rebuilt?"), []);
    const results = rerankCandidates({
      candidates: [a, b, c],
      query,
      stats,
      signals: new Map(),
      weights: { ...defaultRankingWeights, sentiment: 1, hotTopic: 1, attention: 1, depth: 1, decay: 1 },
      now,
      k: 3,
      explain: true,
    });
    expect(results.map((r) => r.id)).toEqual([uuid(2), uuid(1), uuid(3)]);
    expect(results[0]?.relevance).toEqual({ lexical: 1, vector: 0 });
    expect(results[2]?.factors?.relevance).toBe(0);
  });

  it("gives expansion terms half the weight of the query's own", () => {
    expect(queryWeights(["python"], ["django", "python"])).toEqual([
      { term: "django", weight: 0.5 },
      { term: "python", weight: 1 },
    ]);
  });

  it("falls back to the fused score when no part scores", () => {
    const parts = relevanceOf([candidate(uuid(1), "a", 0.02), candidate(uuid(2), "b", 0.01)], [0, 0]);
    expect(parts.map((p) => p.relevance)).toEqual([1, 0.5]);
  });
});

describe("diversify", () => {
  it("leaves dissimilar items in score order", () => {
    const items = [
      { score: 3, terms: new Set(["a"]) },
      { score: 2, terms: new Set(["b"]) },
      { score: 1, terms: new Set(["c"]) },
    ];
    expect(diversify(items, 3).map((c) => c.index)).toEqual([0, 1, 2]);
  });
  it("penalises only above the similarity threshold", () => {
    expect(diversityFactor(0.3)).toBe(1);
    expect(diversityFactor(1)).toBeCloseTo(0.1);
  });
});
