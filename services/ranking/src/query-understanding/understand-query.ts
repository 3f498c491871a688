// What a question asks beyond its words, read without a model: the kind of answer its question
// word asks for ("when" a time, "where" a place, "who" a person), the times it names resolved
// against when it is asked ("last May", "two weeks ago", "in 2022", "yesterday"), and its word
// sequences, where the names it mentions are looked up (a name is only known as one when a
// memory's speaker or entities carry it).
//
// English question words, and Chinese ones (the languages the shared text analysis reads);
// a query in another language is matched on its words alone.
import type { AnswerKind } from "@cairn/contracts";
import { type TimeMention, timeMentions, words } from "@cairn/text-analysis";
import { labelGrams } from "../text/analyze-text.ts";

export type QueryUnderstanding = {
  /** The kind of answer the question asks for, when its question word tells. */
  asks: AnswerKind | null;
  /** The times the question names, resolved against the time it is asked. */
  times: TimeMention[];
  /** The question's words and word sequences, normalised as labels are. */
  grams: ReadonlySet<string>;
};

/** Past this, a query is a text more than a question: its first part is read for cues. */
const maxQueryChars = 1000;

const questionWords = new Set(["what", "which", "who", "whom", "whose", "where", "when", "why", "how"]);
/** "what year", "which city": the noun after what/which names the kind of answer. */
const timeNouns = new Set([
  "time",
  "year",
  "years",
  "month",
  "months",
  "day",
  "days",
  "date",
  "dates",
  "week",
  "weekend",
  "season",
]);
const placeNouns = new Set([
  "place",
  "places",
  "city",
  "cities",
  "country",
  "countries",
  "town",
  "towns",
  "state",
  "states",
  "location",
  "locations",
  "region",
  "address",
  "venue",
]);

const chineseTime = /什么时候|何时|哪天|哪一天|哪年|哪一年|几月|几号|几点/u;
const chinesePlace = /哪里|哪儿|在哪|什么地方|哪个城市|哪个国家/u;
const chinesePerson = /谁/u;

/** The kind of answer an English question asks for, from its first question word. */
function englishAsks(text: string): AnswerKind | null {
  const ws = words(text);
  const at = ws.findIndex((w) => questionWords.has(w));
  // A query that is no question ("deploy steps when tests fail") asks for nothing in particular:
  // the question word opens it, or it ends with a question mark.
  if (at < 0 || (at > 0 && !/[?？]\s*$/u.test(text))) return null;
  const word = ws[at];
  const next = ws[at + 1] ?? "";
  switch (word) {
    case "when":
      return "time";
    case "where":
      return "place";
    case "who":
    case "whom":
    case "whose":
      return "person";
    case "how":
      // "how long ago": a time; "how long" alone asks for a duration.
      return next === "long" && ws[at + 2] === "ago" ? "time" : null;
    case "what":
    case "which":
      if (timeNouns.has(next)) return "time";
      if (placeNouns.has(next)) return "place";
      return null;
    default:
      return null;
  }
}

function chineseAsks(text: string): AnswerKind | null {
  if (chineseTime.test(text)) return "time";
  if (chinesePlace.test(text)) return "place";
  if (chinesePerson.test(text)) return "person";
  return null;
}

export function understandQuery(query: string, now: Date): QueryUnderstanding {
  const text = query.slice(0, maxQueryChars);
  return {
    asks: englishAsks(text) ?? chineseAsks(text),
    times: timeMentions(text, now),
    grams: new Set(labelGrams(text)),
  };
}
