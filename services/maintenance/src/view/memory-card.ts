// What maintenance knows of one memory stream: its document as the memory model folds it,
// without the content, plus features of the text (never the text itself) and the log position
// of each version. Pure, so the same log always gives the same cards.
import type { MemoryDocument } from "@cairn/contracts";
import { evolveStoredDocument, type MemoryEvent } from "@cairn/memory-model";
import { distinctTopicWords, shingles, sketch } from "../text/text-features.ts";

export type MemoryCard = MemoryDocument & {
  /** When the status last changed (the time of deletion, for a deleted memory). */
  statusChangedAt: string;
  /** The log position of each version (index 0: version 1). */
  positions: number[];
  /** Normalised (lowercased) entity texts. */
  entityWords: string[];
  titleWords: string[];
  contentWords: string[];
  /** Bottom-k sketch of the normalised content's word 3-shingles. */
  sketch: number[];
  contentChars: number;
};

function textFeatures(content: string) {
  return {
    contentWords: distinctTopicWords(content),
    sketch: sketch(shingles(content)),
    contentChars: content.length,
  };
}

function documentOf(card: MemoryCard): MemoryDocument {
  const {
    statusChangedAt: _s,
    positions: _p,
    entityWords: _e,
    titleWords: _t,
    contentWords: _c,
    sketch: _k,
    contentChars: _n,
    ...document
  } = card;
  return document;
}

/** The card after one event of its stream (throws the memory model's fold error when it cannot follow). */
export function evolveCard(card: MemoryCard | undefined, event: MemoryEvent): MemoryCard {
  const { document, content } = evolveStoredDocument(card ? documentOf(card) : null, event);
  const at = event.meta.recordedAt;
  return {
    ...document,
    statusChangedAt: card === undefined || card.status !== document.status ? at : card.statusChangedAt,
    positions: [...(card?.positions ?? []), event.position],
    entityWords: [...new Set(document.entities.map((e) => e.text.toLowerCase()))],
    titleWords:
      card?.title === document.title && card ? card.titleWords : distinctTopicWords(document.title, 50),
    ...(content === null && card
      ? { contentWords: card.contentWords, sketch: card.sketch, contentChars: card.contentChars }
      : textFeatures(content ?? "")),
  };
}

/** The consolidation level: 1 for a memory as written, one more than its highest source for a consolidation. */
export function levelOf(card: MemoryCard): number {
  return card.level ?? 1;
}

/** The version a memory had once the log reached `position` (0: it did not exist yet). */
export function versionAt(card: MemoryCard, position: number): number {
  let version = 0;
  for (const p of card.positions) {
    if (p > position) break;
    version += 1;
  }
  return version;
}

/** The topic words of a memory: title and content. */
export function cardWords(card: MemoryCard): string[] {
  return [...new Set([...card.titleWords, ...card.contentWords])];
}
