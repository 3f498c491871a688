// The relevance a re-ranking score starts from, computed here from the candidates' text
// rather than taken from the retrievers' rank fusion.
//
// Why not RRF's `fused`: it keeps only ranks, so its values are nearly flat (1/61 … 1/70 over
// the top ten), and any multiplicative factor above ~1.15 would reorder a top ten by signals
// alone. Score-based fusion keeps how much better one candidate matches than another:
// relevance is the convex combination, with equal weights, of two max-normalised scores
// (Bruch et al., "An Analysis of Fusion Functions for Hybrid Retrieval", 2023):
//
// - lexical: Okapi BM25 (k1 1.2, b 0.75) of the query's stemmed topic terms, with the
//   tenant's document frequencies and lengths from the signals projection; expansion terms
//   count half, as in query-expansion interpolation;
// - vector: the candidate's cosine similarity from the vector retriever (negative as 0).
//
// A part that no candidate has (no vector retriever, or no lexical match) leaves the other
// alone; with neither, the fused score is used.
import type { Candidate } from "@cairn/contracts";

export type LexicalStats = {
  /** Live memories of the tenant. */
  documents: number;
  averageLength: number;
  /** Document frequency of each query term. */
  documentFrequency: Map<string, number>;
};

export type WeightedTerm = { term: string; weight: number };

export const bm25 = { k1: 1.2, b: 0.75 } as const;

/** Share of an expansion term next to a word of the query itself. */
export const expansionTermWeight = 0.5;

export function queryWeights(queryTerms: string[], expansionTerms: string[]): WeightedTerm[] {
  const weights = new Map<string, number>();
  for (const t of expansionTerms) weights.set(t, expansionTermWeight);
  for (const t of queryTerms) weights.set(t, 1);
  return [...weights.entries()].map(([term, weight]) => ({ term, weight }));
}

export function bm25Score(query: WeightedTerm[], documentTerms: string[], stats: LexicalStats): number {
  if (documentTerms.length === 0 || stats.documents === 0) return 0;
  const tf = new Map<string, number>();
  for (const t of documentTerms) tf.set(t, (tf.get(t) ?? 0) + 1);
  const n = Math.max(stats.documents, 1);
  const lengthNorm = 1 - bm25.b + (bm25.b * documentTerms.length) / Math.max(stats.averageLength, 1);
  let score = 0;
  for (const { term, weight } of query) {
    const f = tf.get(term);
    if (!f) continue;
    // A term the statistics do not know yet (written after them) counts as rare.
    const df = Math.min(n, Math.max(1, stats.documentFrequency.get(term) ?? 1));
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
    score += (weight * idf * f * (bm25.k1 + 1)) / (f + bm25.k1 * lengthNorm);
  }
  return score;
}

export type RelevanceParts = { relevance: number; lexical: number; vector: number };

export function relevanceOf(candidates: Candidate[], lexicalScores: number[]): RelevanceParts[] {
  const maxLexical = Math.max(0, ...lexicalScores);
  const vectorScores = candidates.map((c) => Math.max(0, c.vector?.score ?? 0));
  const maxVector = Math.max(0, ...vectorScores);
  const maxFused = Math.max(0, ...candidates.map((c) => c.fused));
  return candidates.map((c, i) => {
    const lexical = maxLexical > 0 ? (lexicalScores[i] ?? 0) / maxLexical : 0;
    const vector = maxVector > 0 ? (vectorScores[i] ?? 0) / maxVector : 0;
    let relevance: number;
    if (maxLexical > 0 && maxVector > 0) relevance = (lexical + vector) / 2;
    else if (maxLexical > 0) relevance = lexical;
    else if (maxVector > 0) relevance = vector;
    else relevance = maxFused > 0 ? Math.max(0, c.fused) / maxFused : 1;
    return { relevance, lexical, vector };
  });
}
