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

// Features are hashed with FNV-1a over the UTF-16 code units of "<kind>:<text>", twice (two
// seeds: the dimension, and the sign). The hashes are fed code unit by code unit, so no
// feature string is built: a text of n words makes no garbage beyond its words.
const fnvOffset = 0x811c9dc5;
const fnvPrime = 0x01000193;
const signSeed = 0x9e3779b9;

/** The two hash states of a feature being fed: [dimension hash, sign hash]. */
type Fnv = { a: number; b: number };

function start(prefix: string): Fnv {
  const h = { a: (fnvOffset ^ 0) >>> 0, b: (fnvOffset ^ signSeed) >>> 0 };
  feed(h, prefix, 0, prefix.length);
  return h;
}

function feed(h: Fnv, text: string, from: number, to: number): void {
  let a = h.a;
  let b = h.b;
  for (let i = from; i < to; i += 1) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, fnvPrime) >>> 0;
    b = Math.imul(b ^ c, fnvPrime) >>> 0;
  }
  h.a = a;
  h.b = b;
}

function feedUnit(h: Fnv, c: number): void {
  h.a = Math.imul(h.a ^ c, fnvPrime) >>> 0;
  h.b = Math.imul(h.b ^ c, fnvPrime) >>> 0;
}

const prefixes = {
  w: start("w:"),
  s: start("s:"),
  b: start("b:"),
  g: start("g:"),
  c1: start("c1:"),
  c2: start("c2:"),
};
const scratch: Fnv = { a: 0, b: 0 };

function begin(prefix: Fnv): Fnv {
  scratch.a = prefix.a;
  scratch.b = prefix.b;
  return scratch;
}

function add(vector: Float64Array, h: Fnv, weight: number): void {
  const index = h.a % vector.length;
  vector[index] = (vector[index] as number) + ((h.b & 1) === 0 ? weight : -weight);
}

function stem(word: string): string {
  for (const suffix of ["ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "ly", "s"]) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

const lt = "<".charCodeAt(0);
const gt = ">".charCodeAt(0);
const space = " ".charCodeAt(0);

/** The feature vector of one text (unit length; all zeros for a text without letters or digits). */
export function embedLocally(text: string, dimensions: number): number[] {
  const vector = new Float64Array(dimensions);
  const words = (text.normalize("NFKC").toLowerCase().match(tokenPattern) ?? []).slice(0, 4000);
  let previous: string | null = null;
  for (const word of words) {
    if (cjk.test(word)) {
      const chars = [...word];
      chars.forEach((c, i) => {
        const one = begin(prefixes.c1);
        feed(one, c, 0, c.length);
        add(vector, one, 0.6);
        const next = chars[i + 1];
        if (next !== undefined) {
          const two = begin(prefixes.c2);
          feed(two, c, 0, c.length);
          feed(two, next, 0, next.length);
          add(vector, two, 1);
        }
      });
      previous = null;
      continue;
    }
    const weight = stopwords.has(word) ? 0.15 : 1;
    const whole = begin(prefixes.w);
    feed(whole, word, 0, word.length);
    add(vector, whole, weight);
    const stemmed = stem(word);
    const stemHash = begin(prefixes.s);
    feed(stemHash, stemmed, 0, stemmed.length);
    add(vector, stemHash, weight * 0.8);
    if (previous !== null) {
      const pair = begin(prefixes.b);
      feed(pair, previous, 0, previous.length);
      feedUnit(pair, space);
      feed(pair, stemmed, 0, stemmed.length);
      add(vector, pair, weight * 0.4);
    }
    previous = stemmed;
    if (weight < 1) continue;
    // Character 3- and 4-grams of the word between boundary marks: "<word>".
    const marked = word.length + 2;
    const grams = Math.max(marked - 2, 0) + Math.max(marked - 3, 0);
    const gramWeight = 1.2 / Math.sqrt(Math.max(grams, 1));
    for (const n of [3, 4]) {
      for (let i = 0; i + n <= marked; i += 1) {
        const gram = begin(prefixes.g);
        for (let j = i; j < i + n; j += 1) {
          feedUnit(gram, j === 0 ? lt : j === marked - 1 ? gt : word.charCodeAt(j - 1));
        }
        add(vector, gram, gramWeight);
      }
    }
  }
  const rounded = new Array<number>(dimensions);
  for (let i = 0; i < dimensions; i += 1) rounded[i] = Math.round((vector[i] as number) * 1e6) / 1e6;
  return normalize(rounded);
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
