// What an importer does to foreign text before ingest sees it. Everything that changes a value
// is reported through `report`, so a dry run shows exactly what an import would alter; content
// itself is only ever cleaned of characters no reader can use, never cut.
import { TimestampSchema } from "@cairn/contracts";
import { cutToLength } from "./slot-name.ts";

/** Receives one message about the record being imported. */
export type Report = (message: string) => void;

// ANSI escape sequences (colours from a terminal log pasted into a memory): removed whole, so
// that no "[31m" is left behind when the ESC itself goes.
// biome-ignore lint/suspicious/noControlCharactersInRegex: an escape sequence starts with ESC
const ansiSequence = /\u001b\[[0-?]*[ -/]*[@-~]/g;
// C0 controls except tab, line feed and carriage return; DEL; C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const contentControl = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
// In a one-line label every control character goes, tabs and line breaks included.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const labelControl = /[\u0000-\u001f\u007f-\u009f]/g;
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function codePoints(chars: string[]): string {
  const unique = [...new Set(chars)].map(
    (c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`,
  );
  return unique.slice(0, 5).join(", ") + (unique.length > 5 ? ", …" : "");
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : word.endsWith("s") ? "es" : "s"}`;
}

/** A short quotation of a value for a report: never the whole of a long text. */
export function preview(text: string, max = 40): string {
  const flat = text.replace(labelControl, " ").replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > max ? `${cutToLength(flat, max)}…` : flat);
}

function removeUnreadable(text: string, control: RegExp, what: string, report: Report): string {
  let out = text;
  const ansi = out.match(ansiSequence);
  if (ansi) {
    out = out.replace(ansiSequence, "");
    report(`${what}: removed ${plural(ansi.length, "terminal escape sequence")}`);
  }
  const controls = out.match(control);
  if (controls) {
    out = out.replace(control, "");
    report(`${what}: removed ${plural(controls.length, "control character")} (${codePoints(controls)})`);
  }
  const lone = out.match(loneSurrogate);
  if (lone) {
    out = out.replace(loneSurrogate, "\ufffd");
    report(`${what}: replaced ${plural(lone.length, "unpaired surrogate")} with U+FFFD`);
  }
  return out;
}

/**
 * Content without control characters (tab and line breaks stay), terminal escapes or unpaired
 * surrogates; Windows line ends become `\n`. Length is not touched here: content over the
 * limit is refused by the plan, never cut.
 */
export function cleanContent(raw: string, report: Report): string {
  return removeUnreadable(raw.replace(/\r\n?/g, "\n"), contentControl, "content", report);
}

/**
 * A one-line label (title, tag, key, alias, project, source): control characters removed,
 * whitespace collapsed, trimmed, cut to `max` characters. An empty result is `""`.
 */
export function cleanLabel(raw: string, max: number, what: string, report: Report): string {
  const readable = removeUnreadable(raw.replace(/[\t\r\n]+/g, " "), labelControl, what, report);
  const label = readable.replace(/\s+/gu, " ").trim();
  if (label.length <= max) return label;
  const cut = cutToLength(label, max).trimEnd();
  report(`${what} ${preview(label)} cut to ${max} characters`);
  return cut;
}

/**
 * Labels cleaned one by one, case-insensitive repeats and empty ones dropped, at most `maxCount`
 * kept (the rest reported). `lowerCase` for tags, which ingest stores in lower case.
 */
export function cleanLabels(
  values: readonly string[],
  options: { maxChars: number; maxCount: number; what: string; lowerCase?: boolean },
  report: Report,
): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const dropped: string[] = [];
  for (const value of values) {
    let label = cleanLabel(value, options.maxChars, options.what, report);
    if (options.lowerCase) label = label.toLowerCase();
    const key = label.normalize("NFKC").toLowerCase();
    if (label.length === 0 || seen.has(key)) continue;
    seen.add(key);
    if (out.length < options.maxCount) out.push(label);
    else dropped.push(label);
  }
  if (dropped.length > 0) {
    report(
      `${plural(dropped.length, options.what)} over the limit of ${options.maxCount} dropped: ${dropped
        .slice(0, 5)
        .map((d) => preview(d, 30))
        .join(", ")}${dropped.length > 5 ? ", …" : ""}`,
    );
  }
  return out;
}

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
const hasZone = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * A timestamp in the contract's form (ISO 8601, UTC) from what foreign formats write: an ISO
 * string (one without a zone is read as UTC, so the result does not depend on the machine),
 * a date, or a number of seconds (below 10^11) or milliseconds since 1970. Anything else is
 * reported and gives `null`.
 */
export function cleanTimestamp(raw: unknown, what: string, report: Report): string | null {
  if (raw === null || raw === undefined || raw === "") return null;
  let millis: number;
  if (typeof raw === "number") {
    millis = Math.abs(raw) < 1e11 ? raw * 1000 : raw;
  } else if (typeof raw === "string") {
    const text = raw.trim();
    const zoned = dateOnly.test(text) || hasZone.test(text) ? text : `${text}Z`;
    millis = Date.parse(zoned);
  } else if (raw instanceof Date) {
    millis = raw.getTime();
  } else {
    report(`${what}: ${preview(JSON.stringify(raw) ?? String(raw))} is not a time; left out`);
    return null;
  }
  const representable = Number.isFinite(millis) && Math.abs(millis) <= 8.64e15;
  const iso = representable ? new Date(millis).toISOString() : "";
  if (!TimestampSchema.safeParse(iso).success) {
    report(`${what}: ${preview(String(raw))} is not a time; left out`);
    return null;
  }
  return iso;
}
