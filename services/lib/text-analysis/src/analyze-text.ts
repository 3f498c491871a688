// How Cairn turns text into the terms it scores on, in one place: the lexical index and its
// queries (search), the relevance and signals of ranking. The same analysis on both sides of
// a match, and the same at index and at query time:
//
// - NFKC, lower case, the possessive `'s` dropped;
// - words are runs of letters and digits; a run of Chinese is cut into words (jieba), since
//   Chinese is written without spaces;
// - English function words (the stop word list most BM25 baselines use) carry no topic and
//   are dropped, and so are single letters;
// - every other word is reduced to its Snowball (Porter2) English stem ("deployments",
//   "deploying" → "deploy");
//   numbers and words of unspaced scripts stay as they are.
//
// Deterministic: a replay of the log derives the same terms as the live projection did.
import { Jieba } from "@node-rs/jieba";
import { dict } from "@node-rs/jieba/dict.js";
import { stem as snowballStem } from "porter2";
import { englishStopWords } from "./stop-words.ts";

// Han, Hiragana, Katakana and Hangul are written without spaces between words.
const unspaced = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const hanRun = /\p{Script=Han}+/gu;
const hasHan = /\p{Script=Han}/u;

let jieba: Jieba | undefined;
function segmenter(): Jieba {
  jieba ??= Jieba.withDict(dict);
  return jieba;
}

/** Words of the Chinese runs in `text` (search mode: long words and their parts). */
export function chineseSegments(text: string): string[] {
  if (!hasHan.test(text)) return [];
  const out: string[] = [];
  for (const run of text.match(hanRun) ?? []) {
    for (const word of segmenter().cutForSearch(run, true)) if (word.trim() !== "") out.push(word);
  }
  return out;
}

/** Lowercased words (letters and digits), possessive `'s` dropped, Chinese runs cut into words. */
export function words(text: string): string[] {
  const tokens =
    text
      .normalize("NFKC")
      .toLowerCase()
      .replace(/['’]s\b/g, "")
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  if (!hasHan.test(text)) return tokens;
  return tokens.flatMap((token) =>
    hasHan.test(token)
      ? [...token.split(hanRun).filter((t) => t !== ""), ...chineseSegments(token)]
      : [token],
  );
}

/**
 * Stems already made. A language has few distinct words next to the words of a log (a rebuild
 * analyses every memory again), so most lookups hit; bounded, it forgets all and starts over.
 */
const stems = new Map<string, string>();
const maxStems = 100_000;

/** The stem of one lowercased word; words of unspaced scripts and numbers stay as they are. */
export function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = unspaced.test(word) || /^\p{N}+$/u.test(word) ? word : snowballStem(word);
    if (stems.size >= maxStems) stems.clear();
    stems.set(word, stemmed);
  }
  return stemmed;
}

/** Whether a word carries a topic: not a function word, not a lone letter. */
export function isTopicWord(word: string): boolean {
  if (englishStopWords.has(word)) return false;
  return word.length > 1 || /\p{N}/u.test(word) || unspaced.test(word);
}

/** The terms of a text, in order (repeats kept, for term frequencies). */
export function analyzeText(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (isTopicWord(w)) out.push(stem(w));
  return out;
}
