// What maintenance compares memories by: their topic words (for grouping, synonyms and
// extractive summaries) and hashed word shingles of the normalised text (near-duplicates).
// Deterministic and pure; words are kept as written (lowercased), not stemmed, because the
// synonym table they feed is applied to query words.
import { createHash } from "node:crypto";

/** English function words and filler; they say nothing about a memory's topic. */
export const stopWords: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing done down during each even ever every few for from further get gets got
had has have having he her here hers herself him himself his how i if in into is it its itself just let like may
me might more most much must my myself no nor not now of off on once one only or other our ours ourselves out over
own per really same shall she should so some such than that the their theirs them themselves then there these they
this those through to too under until up upon us use used uses using very via was we were what when where which
while who whom whose why will with would yet you your yours yourself yourselves`.split(/\s+/),
);

/** Lowercased words (letters and digits, NFKC), possessive `'s` dropped. */
export function words(text: string): string[] {
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .replace(/['’]s\b/g, "")
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Topic words: not stop words, at least 3 characters, not pure numbers. */
export function topicWords(text: string): string[] {
  return words(text).filter((w) => w.length >= 3 && !stopWords.has(w) && !/^\p{N}+$/u.test(w));
}

/** The distinct topic words of a text, in first-seen order, at most `max`. */
export function distinctTopicWords(text: string, max = 200): string[] {
  return [...new Set(topicWords(text))].slice(0, max);
}

/** The text as compared for near-duplicates: its words joined by single spaces. */
export function normaliseText(text: string): string {
  return words(text).join(" ");
}

function hash32(text: string): number {
  return createHash("sha1").update(text).digest().readUInt32BE(0);
}

/**
 * Hashed word 3-shingles of the normalised text (a text of fewer than three words gives one
 * shingle of all of it). Similar texts share most of them; distinct, at most `max`.
 */
export function shingles(text: string, max = 2000): number[] {
  const w = words(text);
  if (w.length === 0) return [];
  if (w.length < 3) return [hash32(w.join(" "))];
  const out = new Set<number>();
  for (let i = 0; i + 3 <= w.length && out.size < max; i += 1)
    out.add(hash32(`${w[i]} ${w[i + 1]} ${w[i + 2]}`));
  return [...out];
}

/** |A ∩ B| / |A ∪ B|; 0 for two empty sets. */
export function jaccard<T>(a: ReadonlySet<T> | readonly T[], b: ReadonlySet<T> | readonly T[]): number {
  const setA = a instanceof Set ? (a as ReadonlySet<T>) : new Set(a as readonly T[]);
  const setB = b instanceof Set ? (b as ReadonlySet<T>) : new Set(b as readonly T[]);
  if (setA.size === 0 && setB.size === 0) return 0;
  let shared = 0;
  const [small, large] = setA.size <= setB.size ? [setA, setB] : [setB, setA];
  for (const x of small) if (large.has(x)) shared += 1;
  return shared / (setA.size + setB.size - shared);
}

/** Sentences of a text (split after . ! ? or line breaks), trimmed, empty ones left out. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Bottom-k sketch: the `k` smallest shingle hashes, ascending (all of them for a short text). */
export function sketch(hashes: readonly number[], k = 256): number[] {
  return [...new Set(hashes)].sort((x, y) => x - y).slice(0, k);
}

/**
 * Jaccard similarity of two texts estimated from their bottom-k sketches: of the k smallest
 * hashes of the union, the share found in both. Exact while both texts have at most k shingles.
 */
export function sketchSimilarity(a: readonly number[], b: readonly number[], k = 256): number {
  if (a.length === 0 || b.length === 0) return 0;
  const inB = new Set(b);
  const inA = new Set(a);
  const union = [...new Set([...a, ...b])].sort((x, y) => x - y).slice(0, k);
  let both = 0;
  for (const h of union) if (inA.has(h) && inB.has(h)) both += 1;
  return both / union.length;
}
