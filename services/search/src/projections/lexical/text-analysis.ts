// How text becomes RediSearch terms, on both sides: when a document is indexed and when a
// query is parsed. RediSearch splits on ASCII punctuation and whitespace and keeps every
// other character; it does not segment Chinese. So documents get an extra field of jieba
// segments, and a query is cut the same way. Terms built here contain only letters, digits,
// `_` and non-ASCII characters: nothing a user types can reach the query syntax.
import { Jieba } from "@node-rs/jieba";
import { dict } from "@node-rs/jieba/dict.js";

/** The separators of RediSearch's default tokenizer (1.x and 2.x), plus a few more that can never be in a term. */
const separators = /[\s\p{Cc},.<>{}[\]"':;!@#$%^&*()\-+=~|/\\?`]+/u;
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

/**
 * Terms of a query as RediSearch would tokenize the same text in a document, lower case and
 * deduplicated, in order. Chinese runs are replaced by their jieba words.
 */
export function queryTerms(text: string, max = 64): string[] {
  const seen = new Set<string>();
  const add = (term: string) => {
    const t = term.toLowerCase();
    if (t !== "" && !seen.has(t) && seen.size < max) seen.add(t);
  };
  for (const token of text.normalize("NFC").split(separators)) {
    if (token === "") continue;
    if (hasHan.test(token)) {
      // A mixed token ("v2部署") keeps its non-Chinese parts as terms of their own.
      for (const rest of token.split(hanRun)) add(rest);
      for (const word of chineseSegments(token)) add(word);
    } else {
      add(token);
    }
  }
  return [...seen];
}

/**
 * Backslash-escapes every ASCII character that is not a letter or digit (tag values). `_` is
 * escaped too: a lone `_` is a syntax error in RediSearch 1.x, `\_` matches the same token.
 */
export function escapeQueryText(value: string): string {
  // Control characters become an escaped space; other ASCII punctuation is escaped as itself.
  return value.replace(/\p{Cc}|[ -/:-@[-`{-~]/gu, (c) => (/\p{Cc}/u.test(c) ? "\\ " : `\\${c}`));
}

/**
 * The form a tag value is stored and matched in: trimmed, lower case, control characters
 * and the tag separator (`,`) replaced by spaces.
 */
export function normalizeTag(value: string): string {
  return value
    .normalize("NFC")
    .replace(/[\p{Cc},]+/gu, " ")
    .trim()
    .toLowerCase();
}

/** `@field:{a|b}` for tag values (empty values dropped; nothing when none remain). */
export function tagClause(field: string, values: readonly string[]): string | null {
  const escaped = values.map(normalizeTag).filter((v) => v !== "");
  if (escaped.length === 0) return null;
  return `@${field}:{${escaped.map(escapeQueryText).join("|")}}`;
}
