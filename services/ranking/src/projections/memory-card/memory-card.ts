// What the ranking read models keep of a memory: its document as the memory model folds it,
// without the content, plus the scoring terms of its text (for BM25 statistics, attention and
// hot topics) and the cues a question is matched on (its speaker, the times it names). Both
// projections keep their own copy, so each can be rebuilt alone.
import type { DecodedEvent, MemoryDocument, Principal } from "@cairn/contracts";
import { canSee, evolveStoredDocument, type MemoryEvent } from "@cairn/memory-model";
import type { Redis } from "ioredis";
import { type MemoryCues, memoryCues, memoryTime, noCues } from "../../query-understanding/memory-cues.ts";
import { scoringTerms } from "../../text/analyze-text.ts";

export type MemoryCard = MemoryDocument & {
  /** Distinct scoring terms of title and content (at most `maxCardTerms`). */
  terms: string[];
  /** Number of scoring terms (with repeats): the document length for BM25. */
  length: number;
  /** Speaker and times of its text (absent on cards written before cues were kept). */
  cues?: MemoryCues;
};

export const maxCardTerms = 256;

export function distinctTerms(terms: string[], max = maxCardTerms): string[] {
  return [...new Set(terms)].slice(0, max);
}

function textOf(document: MemoryDocument, content: string): Pick<MemoryCard, "terms" | "length" | "cues"> {
  const terms = scoringTerms(document.title, content);
  return {
    terms: distinctTerms(terms),
    length: terms.length,
    cues: memoryCues(content, memoryTime(document)),
  };
}

/**
 * The card after `event` (throws the memory model's fold error when the event cannot follow
 * it). Terms and cues are made when the event brings text (times resolved against the
 * memory's time then); a title-only change keeps those it had, and a purge leaves none.
 */
export function evolveMemoryCard(card: MemoryCard | undefined, event: MemoryEvent): MemoryCard {
  const stored = card ? withoutTerms(card) : null;
  const { document, content } = evolveStoredDocument(stored, event);
  if (content === null)
    return { ...document, terms: card?.terms ?? [], length: card?.length ?? 0, cues: card?.cues ?? noCues };
  if (document.purgedAt) return { ...document, terms: [], length: 0, cues: noCues };
  return { ...document, ...textOf(document, content) };
}

function withoutTerms(card: MemoryCard): MemoryDocument {
  const { terms: _t, length: _l, cues: _c, ...document } = card;
  return document;
}

/** Several cards in one round trip, by memory id (absent ones left out). */
export async function readCards(
  redis: Redis,
  keyOf: (id: string) => string,
  ids: readonly string[],
): Promise<Map<string, MemoryCard>> {
  if (ids.length === 0) return new Map();
  return parseCards(ids, await redis.mget(...ids.map(keyOf)));
}

/** Cards as stored, read for `ids` in their order, by memory id (absent ones left out). */
export function parseCards(
  ids: readonly string[],
  raws: readonly (string | null)[],
): Map<string, MemoryCard> {
  const out = new Map<string, MemoryCard>();
  ids.forEach((id, i) => {
    const raw = raws[i];
    if (raw) out.set(id, JSON.parse(raw) as MemoryCard);
  });
  return out;
}

export async function readCard(redis: Redis, key: string): Promise<MemoryCard | undefined> {
  const raw = await redis.get(key);
  return raw === null ? undefined : (JSON.parse(raw) as MemoryCard);
}

/** Confirmed and current: what co-occurrence, key counts and listings are made of. */
export function isLive(card: MemoryCard | undefined): card is MemoryCard {
  return card !== undefined && card.tier === "memory" && card.status === "active";
}

/** Whether `principal` may see the memory (the memory model's rule). */
export function isVisibleTo(card: MemoryCard, principal: Principal): boolean {
  return canSee(card, principal);
}

/** Events a ranking projection that keeps cards needs to see. */
export function isCardEvent(event: DecodedEvent): event is MemoryEvent {
  return event.streamType === "memory";
}
