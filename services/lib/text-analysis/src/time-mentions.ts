// Time expressions in a text, each resolved against a reference time into the span of time it
// names: "yesterday" (a day), "last week" and "two weeks ago" (about a week), "next month" and
// "in June" (a month), "last year" and "in 2022" (a year), "on 8 May 2023" and "2023-05-08"
// (a day). A memory's mentions are resolved against the memory's own time, so "I moved here
// last year", written in 2023, is about 2022; a question's against the time it is asked.
//
// Parsing is chrono's (English, and Chinese or Japanese when the text is written in them). Two
// forms chrono leaves out are added through its own parser interface: a year after a
// preposition ("in 2022", "since 2016"; a bare number is too often not a year) and a month
// after last/this/next ("last May"; "May" alone is too often the verb).
//
// Deterministic for a given text and reference (UTC throughout), so a replay of the log
// derives the same mentions as the live projection did.
import * as chrono from "chrono-node";

export type TimeGrain = "day" | "week" | "month" | "year";

export type TimeSpan = {
  /** Epoch milliseconds, UTC: the span is [start, end). */
  start: number;
  end: number;
};

export type TimeMention = TimeSpan & {
  /** The words that name the time, as written. */
  text: string;
  grain: TimeGrain;
  /** A month or a day named without its year ("in June", "on the 4th of July"): that month or day of any year. */
  yearless: boolean;
};

const dayMs = 86_400_000;
/** Text past this many characters is not searched for times: names of times come early enough. */
const maxChars = 4000;
/** Mentions kept per text. */
const maxMentions = 16;
/** "Last week", "two weeks ago": the day chrono computes, give or take half a week. */
const weekSlackDays = 3;

const monthNames = (style: "long" | "short") =>
  Array.from({ length: 12 }, (_, m) =>
    new Intl.DateTimeFormat("en", { month: style, timeZone: "UTC" })
      .format(Date.UTC(2000, m, 1))
      .toLowerCase(),
  );
const longMonths = monthNames("long");
const shortMonths = monthNames("short");
const monthOf = (word: string): number => {
  const w = word.toLowerCase().replace(/\.$/, "");
  const long = longMonths.indexOf(w);
  if (long >= 0) return long + 1;
  const short = shortMonths.indexOf(w.slice(0, 3));
  return short >= 0 && (w.length === 3 || w === "sept") ? short + 1 : -1;
};

/** "in 2022", "since 2016", "during 1999": a year after a preposition. */
const yearAfterPreposition: chrono.Parser = {
  pattern: () =>
    /\b(?:in|since|during|from|until|till|before|after|by|around|of|early|late|mid)\s+((?:1[89]|20)\d{2})(?![\p{L}\p{N}]|[:.,]\d)/iu,
  extract: (_context, match) => ({ year: Number(match[1]) }),
};

/** "last May", "this March", "next Sept": the month's most recent, current or coming occurrence. */
const relativeMonth: chrono.Parser = {
  pattern: () =>
    new RegExp(
      `\\b(last|past|this|next)\\s+(${[...longMonths, ...shortMonths, "sept"].join("|")})\\.?(?![\\p{L}\\p{N}])`,
      "iu",
    ),
  extract: (context, match) => {
    const month = monthOf(match[2] ?? "");
    if (month < 0) return null;
    const ref = context.reference.instant;
    const year = ref.getUTCFullYear();
    const current = ref.getUTCMonth() + 1;
    const which = (match[1] ?? "").toLowerCase();
    const y =
      which === "this"
        ? year
        : which === "next"
          ? month > current
            ? year
            : year + 1
          : month < current
            ? year
            : year - 1;
    return { year: y, month };
  },
};

const english = chrono.casual.clone();
english.parsers.push(yearAfterPreposition, relativeMonth);

const kana = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const han = /\p{Script=Han}/u;

function parsersFor(text: string): chrono.Chrono[] {
  if (kana.test(text)) return [english, chrono.ja.casual];
  if (han.test(text)) return [english, chrono.zh.casual];
  return [english];
}

function utcDay(date: Date): number {
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

type Components = chrono.ParsedResult["start"];

/** The span one side of a result names, at the grain of what it states. */
function spanOf(components: Components, text: string): (TimeSpan & { grain: TimeGrain }) | null {
  const certain = (c: chrono.Component) => components.isCertain(c);
  const date = components.date();
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  if (certain("day") || certain("weekday")) {
    const start = utcDay(date);
    if (/\bweek/i.test(text)) {
      return {
        start: start - weekSlackDays * dayMs,
        end: start + (weekSlackDays + 1) * dayMs,
        grain: "week",
      };
    }
    return { start, end: start + dayMs, grain: "day" };
  }
  if (certain("month"))
    return { start: Date.UTC(year, month, 1), end: Date.UTC(year, month + 1, 1), grain: "month" };
  if (certain("year")) return { start: Date.UTC(year, 0, 1), end: Date.UTC(year + 1, 0, 1), grain: "year" };
  return null;
}

/**
 * Whether chrono's reading is a time at all: a time of day alone ("at 3pm", "night") says no
 * date; "now" is mostly a way of speaking ("seven years now"); a lowercase three-letter word
 * ("sun", "sat", "wed", "mar") is nearly always the ordinary word, not the day or month.
 */
function namesADate(result: chrono.ParsedResult): boolean {
  const text = result.text.trim();
  if (/^(?:right\s+)?now$/i.test(text)) return false;
  if (/^\p{Ll}{3}$/u.test(text)) return false;
  return (["year", "month", "day", "weekday"] as const).some((c) => result.start.isCertain(c));
}

export function timeMentions(text: string, reference: Date): TimeMention[] {
  if (text.trim() === "" || Number.isNaN(reference.getTime())) return [];
  const head = text.slice(0, maxChars);
  const ref = { instant: reference, timezone: "UTC" };
  const out: TimeMention[] = [];
  const taken: [number, number][] = [];
  for (const parser of parsersFor(head)) {
    for (const result of parser.parse(head, ref, { forwardDate: false })) {
      if (!namesADate(result)) continue;
      const at: [number, number] = [result.index, result.index + result.text.length];
      // Two languages may read the same words; the first reading stands.
      if (taken.some(([a, b]) => at[0] < b && a < at[1])) continue;
      const start = spanOf(result.start, result.text);
      if (!start) continue;
      const end = result.end ? spanOf(result.end, result.text) : null;
      taken.push(at);
      out.push({
        text: result.text,
        start: start.start,
        end: Math.max(start.end, end?.end ?? 0),
        grain: start.grain,
        yearless:
          result.start.isCertain("month") &&
          !result.start.isCertain("year") &&
          !result.end?.isCertain("year"),
      });
      if (out.length >= maxMentions) return out;
    }
  }
  return out;
}

/**
 * Whether a span (a memory's time, or one of its mentions) overlaps a mention (a question's);
 * a yearless mention overlaps that month or day of any year.
 */
export function mentionOverlaps(mention: TimeMention, span: TimeSpan): boolean {
  if (!mention.yearless) return span.start < mention.end && mention.start < span.end;
  // Any year's: the span's own years are the ones to try.
  const first = new Date(span.start).getUTCFullYear();
  const last = new Date(Math.max(span.start, span.end - 1)).getUTCFullYear();
  for (let year = first; year <= last; year += 1) {
    const shift = year - new Date(mention.start).getUTCFullYear();
    if (span.start < shiftYears(mention.end, shift) && shiftYears(mention.start, shift) < span.end)
      return true;
  }
  return false;
}

function shiftYears(epochMs: number, years: number): number {
  const d = new Date(epochMs);
  return Date.UTC(d.getUTCFullYear() + years, d.getUTCMonth(), d.getUTCDate());
}
