// Folding a batch of log events into the changes a read model must write. Shared by the
// live projections and the rebuild, so both build exactly the same documents.
import type { MemoryDocument, StoredEvent } from "@cairn/contracts";
import { evolveMemoryDocument, memoryIdOf } from "./memory-document.ts";
import { decodeEvent, isMemoryEvent, isPoisonEventError, type PoisonReason } from "./projected-event.ts";

/** An event a projection could not apply; recorded, then skipped. */
export type DeadLetter = {
  event: StoredEvent | null;
  reason: PoisonReason | "retries_exhausted";
  error: string;
  /** The raw message when it could not even be read as an event. */
  raw?: string;
};

export type FoldResult = {
  /** Documents changed by the batch, in their final state. */
  documents: Map<string, MemoryDocument>;
  /** Synonym tables changed by the batch, per tenant. */
  synonyms: Map<string, string[][]>;
  deadLetters: DeadLetter[];
};

const memoryStreamPrefix = "memory-";

/** Ids of the memory documents a batch touches, so they can be loaded before folding. */
export function memoryIdsOf(events: readonly StoredEvent[]): string[] {
  const ids = new Set<string>();
  for (const e of events) {
    if (e.streamType === "memory" && e.streamId.startsWith(memoryStreamPrefix)) {
      ids.add(e.streamId.slice(memoryStreamPrefix.length));
    }
  }
  return [...ids];
}

/**
 * Applies events in order to the current documents (those not in `current` do not exist yet).
 * An event that cannot be decoded or cannot follow its document is dead-lettered and leaves
 * the document as it was; the rest of the batch still applies.
 */
export function foldEvents(
  events: readonly StoredEvent[],
  current: ReadonlyMap<string, MemoryDocument>,
): FoldResult {
  const working = new Map(current);
  const documents = new Map<string, MemoryDocument>();
  const synonyms = new Map<string, string[][]>();
  const deadLetters: DeadLetter[] = [];
  for (const stored of events) {
    try {
      const event = decodeEvent(stored);
      if (isMemoryEvent(event)) {
        const id = memoryIdOf(event);
        const next = evolveMemoryDocument(working.get(id) ?? null, event);
        working.set(id, next);
        documents.set(id, next);
      } else if (event.type === "tenant.settings_changed" && event.data.synonyms !== undefined) {
        synonyms.set(event.meta.tenant, event.data.synonyms);
      }
      // Key and activity events (the key graph, feedback, recalls) belong to ranking's read
      // models; search only moves its checkpoint past them.
    } catch (error) {
      if (!isPoisonEventError(error)) throw error;
      deadLetters.push({ event: stored, reason: error.reason, error: error.message });
    }
  }
  return { documents, synonyms, deadLetters };
}
