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

/**
 * A query's BM25 and coverage, prepared once for scoring many documents: each document's
 * terms are read once, counting only the query's (a query scores up to a thousand pooled
 * documents of fifty terms each).
 */
export type Bm25Scorer = {
  score(documentTerms: readonly string[]): number;
  coverage(documentTerms: readonly string[]): number;
  /**
   * The same over a document's terms as one string, joined by single spaces, and their count:
   * the query's terms are found in place, and the document's are never split.
   */
  scoreText(documentText: string, length: number): number;
  coverageText(documentText: string): number;
};

/** How often `term` stands in `text` as a whole term (terms are joined by single spaces). */
function occurrences(text: string, term: string): number {
  let n = 0;
  let at = text.indexOf(term);
  while (at !== -1) {
    const end = at + term.length;
    if ((at === 0 || text.charCodeAt(at - 1) === 32) && (end === text.length || text.charCodeAt(end) === 32))
      n += 1;
    at = text.indexOf(term, at + 1);
  }
  return n;
}

export function prepareBm25(query: readonly WeightedTerm[], stats: CollectionStatistics): Bm25Scorer {
  const { k1, b } = bm25Parameters;
  // Each distinct term is counted once, whichever query entries name it.
  const slots = new Map<string, number>();
  for (const { term } of query) if (!slots.has(term)) slots.set(term, slots.size);
  const slotOf = query.map((q) => slots.get(q.term) as number);
  const idfs = query.map((q) => idf(q.term, stats));
  const tf = new Float64Array(slots.size);
  const counts = new Float64Array(query.length);
  const distinct = [...slots.keys()];
  // Each query entry's count, from its distinct term's.
  const toEntries = () => {
    slotOf.forEach((slot, i) => {
      counts[i] = tf[slot] as number;
    });
  };
  const countText = (text: string) => {
    distinct.forEach((term, i) => {
      tf[i] = term === "" ? 0 : occurrences(text, term);
    });
    toEntries();
  };
  const weighed = (length: number) => {
    const lengthNorm = 1 - b + (b * length) / Math.max(stats.averageLength, 1);
    let score = 0;
    query.forEach(({ weight }, i) => {
      const f = counts[i] as number;
      if (!f) return;
      score += (weight * (idfs[i] as number) * f * (k1 + 1)) / (f + k1 * lengthNorm);
    });
    return score;
  };
  const covered = () => {
    let total = 0;
    let found = 0;
    query.forEach(({ weight }, i) => {
      const w = weight * (idfs[i] as number);
      total += w;
      if (counts[i]) found += w;
    });
    return total > 0 ? found / total : 0;
  };
  const count = (documentTerms: readonly string[]) => {
    tf.fill(0);
    for (const t of documentTerms) {
      const i = slots.get(t);
      if (i !== undefined) tf[i] = (tf[i] as number) + 1;
    }
    toEntries();
  };
  return {
    score(documentTerms) {
      if (documentTerms.length === 0) return 0;
      count(documentTerms);
      return weighed(documentTerms.length);
    },
    coverage(documentTerms) {
      count(documentTerms);
      return covered();
    },
    scoreText(documentText, length) {
      if (length === 0 || documentText === "") return 0;
      countText(documentText);
      return weighed(length);
    },
    coverageText(documentText) {
      countText(documentText);
      return covered();
    },
  };
}

export function bm25Score(
  query: readonly WeightedTerm[],
  documentTerms: readonly string[],
  stats: CollectionStatistics,
): number {
  return prepareBm25(query, stats).score(documentTerms);
}

/**
 * How much of what the query asks a document holds: the idf-weighted share of the query's
 * terms (expansions at their weight) found in it, in [0, 1]. Unlike a score it does not
 * depend on the other candidates, so a floor on it means the same for every query.
 */
export function queryCoverage(
  query: readonly WeightedTerm[],
  documentTerms: Iterable<string>,
  stats: CollectionStatistics,
): number {
  return prepareBm25(query, stats).coverage([...documentTerms]);
}
