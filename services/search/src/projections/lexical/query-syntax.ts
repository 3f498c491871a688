// How user values reach RediSearch's query syntax: tag values normalised and escaped so a
// value stays one value. Text terms come from @cairn/text-analysis and contain only letters
// and digits: nothing a user types can reach the query syntax.
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
