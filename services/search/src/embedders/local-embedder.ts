// The default embedder: offline, no model download, deterministic. It hashes features of the
// text itself into a fixed number of dimensions (the "hashing trick") and normalises:
//
// - words (Unicode letters and digits), a crude English stem of each, and word pairs;
// - character 3- and 4-grams of each word with boundary marks, so a typo ("deploymnet") or
//   an inflection ("deploying") still shares most features with the word it means;
// - character 1- and 2-grams of Chinese, Japanese and Korean runs, which have no spaces.
//
// It is lexical-semantic, not semantic: "car" and "automobile" share nothing. It makes vector
// and hybrid search work out of the box; an `openai`-compatible model gives real semantics.
import type { Embedder } from "./embedder.ts";
import { normalize } from "./embedder.ts";

export const localEmbedderVersion = "hash-v1";

const stopwords = new Set(
  "a an and are as at be been but by do does for from had has have he her his i if in into is it its of on or our she so that the their them then there these they this to was we were what when where which who will with you your".split(
    " ",
  ),
);

const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const tokenPattern = /[\p{L}\p{N}_]+/gu;

/** FNV-1a over the UTF-16 code units, with a seed so two hashes of one string are independent. */
function hash(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function stem(word: string): string {
  for (const suffix of ["ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "ly", "s"]) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

function addFeature(vector: Float64Array, feature: string, weight: number): void {
  const h = hash(feature, 0);
  const sign = (hash(feature, 0x9e3779b9) & 1) === 0 ? 1 : -1;
  const index = h % vector.length;
  vector[index] = (vector[index] as number) + sign * weight;
}

/** The feature vector of one text (unit length; all zeros for a text without letters or digits). */
export function embedLocally(text: string, dimensions: number): number[] {
  const vector = new Float64Array(dimensions);
  const words = (text.normalize("NFKC").toLowerCase().match(tokenPattern) ?? []).slice(0, 4000);
  let previous: string | null = null;
  for (const word of words) {
    if (cjk.test(word)) {
      const chars = [...word];
      chars.forEach((c, i) => {
        addFeature(vector, `c1:${c}`, 0.6);
        const next = chars[i + 1];
        if (next !== undefined) addFeature(vector, `c2:${c}${next}`, 1);
      });
      previous = null;
      continue;
    }
    const weight = stopwords.has(word) ? 0.15 : 1;
    addFeature(vector, `w:${word}`, weight);
    const stemmed = stem(word);
    addFeature(vector, `s:${stemmed}`, weight * 0.8);
    if (previous !== null) addFeature(vector, `b:${previous} ${stemmed}`, weight * 0.4);
    previous = stemmed;
    if (weight < 1) continue;
    const marked = `<${word}>`;
    const grams: string[] = [];
    for (const n of [3, 4])
      for (let i = 0; i + n <= marked.length; i += 1) grams.push(marked.slice(i, i + n));
    const gramWeight = 1.2 / Math.sqrt(Math.max(grams.length, 1));
    for (const gram of grams) addFeature(vector, `g:${gram}`, gramWeight);
  }
  return normalize(Array.from(vector, (v) => Math.round(v * 1e6) / 1e6));
}

/**
 * The local embedder hashes words and character n-grams: it knows spelling, not meaning, so a
 * hybrid search gives it a small say next to BM25 (measured on the retrieval benchmark: more
 * than this costs recall).
 */
export const localFusionWeight = 0.1;

/** Hashed n-grams of two unrelated conversation turns are ~0.3 alike; 0.5 is the same words, misspelt or inflected. */
export const localCloseSimilarity = 0.5;

export function createLocalEmbedder(options: { dimensions: number; fusionWeight?: number }): Embedder {
  const { dimensions } = options;
  return {
    model: `local:${localEmbedderVersion}:${dimensions}`,
    fusionWeight: options.fusionWeight ?? localFusionWeight,
    closeSimilarity: localCloseSimilarity,
    dimensions: async () => dimensions,
    embed: async (texts) => texts.map((t) => embedLocally(t, dimensions)),
  };
}
