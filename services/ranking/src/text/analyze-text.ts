// Text analysis of the ranking projections and queries: terms come from @cairn/text-analysis
// (the analysis search indexes with); label normalisation, trigrams and similarity are
// ranking's own. Deterministic, so a replay of the log derives the same terms, keys and
// co-occurrences as the live projection did.
import { analyzeText, memoryTerms, stem, words } from "@cairn/text-analysis";

export { stem, words };

/** Topic terms of a text: the shared analysis (Snowball stems, English stop words out). */
export function topicTerms(text: string): string[] {
  return analyzeText(text);
}

/**
 * The form under which a key or entity label is looked up: words, stemmed, joined by one
 * space. "Pythons" and "python", "Job Interviews" and "job interview" meet.
 */
export function normalizeLabel(label: string): string {
  return words(label).map(stem).join(" ");
}

/** Character trigrams of a normalised label, padded so short labels still have some. */
export function trigrams(normalized: string): Set<string> {
  const padded = `  ${normalized} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i += 1) out.add(padded.slice(i, i + 3));
  return out;
}

export function jaccard<T>(a: Set<T>, b: Set<T>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/** Word n-grams (1..maxN) of a text, normalised, for matching labels inside a query. */
export function labelGrams(text: string, maxN = 4): string[] {
  const ws = words(text).map(stem);
  const out: string[] = [];
  for (let n = 1; n <= maxN; n += 1) {
    for (let i = 0; i + n <= ws.length; i += 1) out.push(ws.slice(i, i + n).join(" "));
  }
  return out;
}

/**
 * The forms a label is compared in for similarity: stemmed ("observ") and as written
 * ("observability"); stems alone hide near spellings that stem differently.
 */
export function similarityForms(label: string): string[] {
  const raw = words(label).join(" ");
  const norm = normalizeLabel(label);
  return raw === norm ? [norm] : [norm, raw];
}

/** Highest trigram similarity between any form of `a` and any form of `b`. */
export function labelSimilarity(a: string[], b: string[]): number {
  let best = 0;
  for (const x of a) for (const y of b) best = Math.max(best, jaccard(trigrams(x), trigrams(y)));
  return best;
}

/** The terms a memory is scored on (its title's only when not the start of its content). */
export function scoringTerms(title: string, content: string): string[] {
  return memoryTerms({ title, content });
}
