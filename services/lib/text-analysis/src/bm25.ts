// Okapi BM25 (k1 1.2, b 0.75, Lucene's idf, never negative) over analysed terms, the one
// implementation Cairn scores text with. The statistics are the collection's: the live
// memories of the tenant searched.

export type WeightedTerm = { term: string; weight: number };

export type CollectionStatistics = {
  documents: number;
  averageLength: number;
  /** How many documents hold each term. */
  documentFrequency: ReadonlyMap<string, number>;
};

export const bm25Parameters = { k1: 1.2, b: 0.75 } as const;

/** Share of an expansion term (a synonym, a key) next to a word of the query itself. */
export const expansionTermWeight = 0.5;

/** A query's terms weighted: its own words 1, expansion terms `expansionTermWeight`. */
export function weightedQuery(
  queryTerms: readonly string[],
  expansionTerms: readonly string[],
): WeightedTerm[] {
  const weights = new Map<string, number>();
  for (const t of expansionTerms) weights.set(t, expansionTermWeight);
  for (const t of queryTerms) weights.set(t, 1);
  return [...weights].map(([term, weight]) => ({ term, weight }));
}

/** Inverse document frequency; a term the statistics do not know yet counts as rare. */
export function idf(term: string, stats: CollectionStatistics): number {
  const n = Math.max(stats.documents, 1);
  const df = Math.min(n, Math.max(1, stats.documentFrequency.get(term) ?? 1));
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

export function bm25Score(
  query: readonly WeightedTerm[],
  documentTerms: readonly string[],
  stats: CollectionStatistics,
): number {
  if (documentTerms.length === 0) return 0;
  const tf = new Map<string, number>();
  for (const t of documentTerms) tf.set(t, (tf.get(t) ?? 0) + 1);
  const { k1, b } = bm25Parameters;
  const lengthNorm = 1 - b + (b * documentTerms.length) / Math.max(stats.averageLength, 1);
  let score = 0;
  for (const { term, weight } of query) {
    const f = tf.get(term);
    if (!f) continue;
    score += (weight * idf(term, stats) * f * (k1 + 1)) / (f + k1 * lengthNorm);
  }
  return score;
}

/**
 * How much of what the query asks a document holds: the idf-weighted share of the query's
 * terms (expansions at their weight) found in it, in [0, 1]. Unlike a score it does not
 * depend on the other candidates, so a floor on it means the same for every query.
 */
export function queryCoverage(
  query: readonly WeightedTerm[],
  documentTerms: ReadonlySet<string>,
  stats: CollectionStatistics,
): number {
  let total = 0;
  let found = 0;
  for (const { term, weight } of query) {
    const w = weight * idf(term, stats);
    total += w;
    if (documentTerms.has(term)) found += w;
  }
  return total > 0 ? found / total : 0;
}
