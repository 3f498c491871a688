// Text analysis shared by the ranking projections and queries: words, stop words, stems,
// label normalisation and character trigrams. Deterministic, so a replay of the log
// derives the same terms, keys and co-occurrences as the live projection did.
import { stemmer } from "stemmer";

/** English function words; terms made of them carry no topic. */
export const stopWords = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing done down during each even ever few for from further get got had has
have having he her here hers herself him himself his how i if in into is it its itself just let like me might
more most much must my myself no nor not now of off on once one only or other our ours ourselves out over own
really same shall she should so some such than that the their theirs them themselves then there these they this
those through to too under until up upon us very was we were what when where which while who whom whose why will
with would yet you your yours yourself yourselves`.split(/\s+/),
);

// Han, Hiragana, Katakana and Hangul are written without spaces between words.
const unspaced = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Lowercased words (letters and digits), possessive `'s` dropped. */
export function words(text: string): string[] {
  return (
    text
      .normalize("NFKC")
      .toLowerCase()
      .replace(/['’]s\b/g, "")
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** The stem of one lowercased word; words of unspaced scripts and numbers stay as they are. */
export function stem(word: string): string {
  if (unspaced.test(word) || /^\p{N}+$/u.test(word)) return word;
  return stemmer(word);
}

/** Topic terms of a text: stems of the words that are not stop words (at least 2 characters). */
export function topicTerms(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    if (stopWords.has(w) || (w.length < 2 && !unspaced.test(w))) continue;
    out.push(stem(w));
  }
  return out;
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

/**
 * The topic terms a memory is scored on: its content's, with the title's in front unless
 * the title is just the content's beginning (ingest derives it from the first line), so a
 * derived title does not count its words twice.
 */
export function scoringTerms(title: string, content: string): string[] {
  const body = topicTerms(content);
  const head = topicTerms(title);
  const isPrefix = head.length <= body.length && head.every((t, i) => body[i] === t);
  return isPrefix ? body : [...head, ...body];
}
