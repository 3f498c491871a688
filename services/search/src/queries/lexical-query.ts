// The text part of a lexical query: the union of the query's terms, the caller's expansions
// and the synonyms the tenant declared for any of them, for the index's `terms` field. BM25
// ranks the union. Every term comes from @cairn/text-analysis (the analysis the index was
// built with) and is made of letters and digits only, and a multi-word alternative is an
// intersection of such terms: user text never reaches the syntax.
//
// What RediSearch is asked to match can leave out a term most of the tenant's memories hold
// (see `rarerClause`); BM25 still scores every term of the query.
import {
  analyzeText,
  type CollectionStatistics,
  type WeightedTerm,
  weightedQuery,
} from "@cairn/text-analysis";

/** A query's distinct terms, in order, at most `max`. */
function queryTerms(text: string, max = 64): string[] {
  return [...new Set(analyzeText(text))].slice(0, max);
}

export type LexicalText = {
  /** `(a|b|(c d))`, or null when the text has no searchable term. */
  clause: string | null;
  /** The clause's alternatives: single terms, and `(c d)` for a multi-word expansion. */
  alternatives: string[];
  /** What BM25 scores: the query's own terms, and the expansions' and synonyms' at their weight. */
  weighted: WeightedTerm[];
  /** Synonyms added because a query term matched a group. */
  synonymsApplied: string[];
};

function containsSequence(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  for (let i = 0; i + needle.length <= haystack.length; i += 1) {
    if (needle.every((t, j) => haystack[i + j] === t)) return true;
  }
  return false;
}

/** Members of synonym groups that a query mentions, expanded to the rest of each group. */
export function synonymsFor(terms: readonly string[], groups: readonly string[][]): string[] {
  const added: string[] = [];
  for (const group of groups) {
    const members = group.map((m) => ({ text: m, terms: queryTerms(m) }));
    if (!members.some((m) => containsSequence(terms, m.terms))) continue;
    for (const m of members) if (!containsSequence(terms, m.terms) && m.terms.length > 0) added.push(m.text);
  }
  return [...new Set(added)];
}

export function lexicalText(
  query: string,
  expansions: readonly string[],
  synonymGroups: readonly string[][],
): LexicalText {
  const terms = queryTerms(query);
  const synonymsApplied = synonymsFor(terms, synonymGroups);
  const alternatives = new Set<string>(terms);
  const extraTerms: string[] = [];
  for (const extra of [...expansions, ...synonymsApplied]) {
    const words = queryTerms(extra, 8);
    extraTerms.push(...words);
    if (words.length === 1) alternatives.add(words[0] as string);
    else if (words.length > 1) alternatives.add(`(${words.join(" ")})`);
  }
  const weighted = weightedQuery(terms, extraTerms);
  const listed = [...alternatives];
  return { clause: clauseOf(listed), alternatives: listed, weighted, synonymsApplied };
}

function clauseOf(alternatives: readonly string[]): string | null {
  return alternatives.length === 0 ? null : `(${alternatives.join("|")})`;
}

/**
 * Above this share of a tenant's live memories a term is common: its idf is below ln(1 + 3),
 * against about 3.7 for a term one memory in forty holds.
 */
export const defaultCommonTermShare = 0.25;

/**
 * The clause less each single term that more than `commonShare` of the tenant's live memories
 * hold, or null when no term is that common, or every one is. Such a term matches most of the
 * index, and RediSearch walks, filters and scores every match before it picks the pool. When
 * the rarer terms' matches fill the list asked for, a memory holding the common term and none
 * of the rarer ones scores too little to be in it (the caller asks for the whole clause when
 * they do not); BM25 still counts the common term in every pooled memory that holds it. A
 * multi-word alternative (an intersection) always stays.
 */
export function rarerClause(
  text: LexicalText,
  stats: CollectionStatistics,
  commonShare: number,
): string | null {
  const common = (alternative: string) =>
    !alternative.startsWith("(") &&
    (stats.documentFrequency.get(alternative) ?? 0) > commonShare * stats.documents;
  const rarer = text.alternatives.filter((a) => !common(a));
  return rarer.length === 0 || rarer.length === text.alternatives.length ? null : clauseOf(rarer);
}
