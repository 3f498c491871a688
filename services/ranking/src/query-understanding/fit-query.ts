// How well each candidate fits what a question asks beyond its words, from the cards alone
// (nothing re-read per query). A question may carry three cues:
//
// - names: the question names someone or something a memory is by or about. A memory that is
//   a line of a transcript is by its speaker (what one says in the first person is about
//   oneself; a line that only mentions a name is mostly addressed to them); any other memory
//   is about its entities (people, places, organisations, products).
// - the kind of answer: "when" is answered by a memory that names a time, "where" by one that
//   names a place or an organisation, "who" by one that names a person the question does not.
// - times: the question names a time ("in June", "last week") and the memory's time, or a
//   time it names, falls in it.
//
// A cue counts only when it tells the candidates apart (some meet it); a memory's fit is the
// share of the counted cues it meets, 0..1, and ranking turns it into a bounded factor.
import type { AnswerKind, IntentMatch } from "@cairn/contracts";
import { mentionOverlaps, type TimeMention, type TimeSpan } from "@cairn/text-analysis";
import type { MemoryCard } from "../projections/memory-card/memory-card.ts";
import { normalizeLabel } from "../text/analyze-text.ts";
import { memoryTime, noCues } from "./memory-cues.ts";
import type { QueryUnderstanding } from "./understand-query.ts";

/** A memory's time is an instant; the question's day may be in another time zone. */
const halfDayMs = 43_200_000;

const nameTypes = new Set(["person", "place", "organisation", "product"]);
const answerTypes: Record<AnswerKind, ReadonlySet<string>> = {
  time: new Set(),
  place: new Set(["place", "organisation"]),
  person: new Set(["person"]),
};

type Label = { text: string; norm: string };

/** Who or what the memory is by or about, each with its normalised form. */
function labelsOf(card: MemoryCard): Label[] {
  const speaker = (card.cues ?? noCues).speaker;
  if (speaker !== null) return [{ text: speaker, norm: normalizeLabel(speaker) }];
  return card.entities
    .filter((e) => nameTypes.has(e.type))
    .map((e) => ({ text: e.text, norm: normalizeLabel(e.text) }));
}

function holdsAnswer(card: MemoryCard, asks: AnswerKind, named: ReadonlySet<string>): boolean {
  if (asks === "time") return (card.cues ?? noCues).times.length > 0;
  const types = answerTypes[asks];
  return card.entities.some((e) => types.has(e.type) && !named.has(normalizeLabel(e.text)));
}

function inTime(card: MemoryCard, times: readonly TimeMention[]): boolean {
  const at = Date.parse(memoryTime(card));
  const spans: TimeSpan[] = [
    ...(Number.isNaN(at) ? [] : [{ start: at - halfDayMs, end: at + halfDayMs }]),
    ...(card.cues ?? noCues).times,
  ];
  return times.some((mention) => spans.some((span) => mentionOverlaps(mention, span)));
}

/** The question's times as a person reads them. */
function timesOf(understanding: QueryUnderstanding): IntentMatch["times"] {
  return understanding.times.map((m) => ({
    text: m.text,
    from: new Date(m.start).toISOString(),
    to: new Date(m.end).toISOString(),
    anyYear: m.yearless,
  }));
}

/** Each candidate's fit (with the question's cues, for explanations), by id; a candidate without a card fits nothing. */
export function fitQuery(
  understanding: QueryUnderstanding,
  ids: readonly string[],
  cards: ReadonlyMap<string, MemoryCard>,
): Map<string, IntentMatch> {
  const labels = new Map(ids.map((id) => [id, cardLabels(cards.get(id))]));
  // The names the question mentions: those of the candidates' labels it holds.
  const named = new Set<string>();
  for (const list of labels.values())
    for (const l of list) if (l.norm !== "" && understanding.grams.has(l.norm)) named.add(l.norm);
  const raw = ids.map((id) => {
    const card = cards.get(id);
    if (!card) return { id, names: [] as string[], nameShare: 0, answers: null, inTime: null };
    const mine = (labels.get(id) ?? []).filter((l) => named.has(l.norm));
    return {
      id,
      names: [...new Set(mine.map((l) => l.text))],
      nameShare: named.size === 0 ? 0 : new Set(mine.map((l) => l.norm)).size / named.size,
      answers: understanding.asks === null ? null : holdsAnswer(card, understanding.asks, named),
      inTime: understanding.times.length === 0 ? null : inTime(card, understanding.times),
    };
  });
  // A cue counts when some candidate meets it.
  const counts = {
    names: named.size > 0,
    answers: raw.some((r) => r.answers === true),
    inTime: raw.some((r) => r.inTime === true),
  };
  const cues = Number(counts.names) + Number(counts.answers) + Number(counts.inTime);
  const { asks } = understanding;
  const times = timesOf(understanding);
  return new Map(
    raw.map((r) => {
      const met =
        (counts.names ? r.nameShare : 0) +
        (counts.answers && r.answers ? 1 : 0) +
        (counts.inTime && r.inTime ? 1 : 0);
      const fit = cues === 0 ? 0 : met / cues;
      return [r.id, { asks, times, names: r.names, answers: r.answers, inTime: r.inTime, fit }];
    }),
  );
}

function cardLabels(card: MemoryCard | undefined): Label[] {
  return card ? labelsOf(card) : [];
}
