// Folding a batch of log events into the changes a read model must write. Shared by the
// live projections and the rebuild, so both build exactly the same documents.
import {
  type ContentKeyring,
  type MemoryDocument,
  openSealedEvents,
  SealedContentError,
  type StoredEvent,
} from "@cairn/contracts";
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
 * Opens the sealed memory text of a batch with the memories' content keys (a purged memory's
 * comes back empty). A value that does not open with its key (corrupted, or sealed for another
 * memory) cannot become readable by retrying: that event alone is reported as unreadable.
 */
export async function openSealedBatch(
  events: readonly StoredEvent[],
  keyring: ContentKeyring,
): Promise<{ events: StoredEvent[]; unreadable: Map<string, string> }> {
  const unreadable = new Map<string, string>();
  try {
    return { events: await openSealedEvents(events, keyring), unreadable };
  } catch (error) {
    if (!(error instanceof SealedContentError)) throw error;
  }
  const opened: StoredEvent[] = [];
  for (const event of events) {
    try {
      opened.push(...(await openSealedEvents([event], keyring)));
    } catch (error) {
      if (!(error instanceof SealedContentError)) throw error;
      unreadable.set(event.eventId, error.message);
      opened.push(event);
    }
  }
  return { events: opened, unreadable };
}

/**
 * Applies events in order to the current documents (those not in `current` do not exist yet).
 * An event that cannot be decoded, read (`unreadable`: sealed text that does not open) or
 * follow its document is dead-lettered and leaves the document as it was; the rest of the
 * batch still applies.
 */
export function foldEvents(
  events: readonly StoredEvent[],
  current: ReadonlyMap<string, MemoryDocument>,
  unreadable: ReadonlyMap<string, string> = new Map(),
): FoldResult {
  const working = new Map(current);
  const documents = new Map<string, MemoryDocument>();
  const synonyms = new Map<string, string[][]>();
  const deadLetters: DeadLetter[] = [];
  for (const stored of events) {
    const sealedError = unreadable.get(stored.eventId);
    if (sealedError !== undefined) {
      deadLetters.push({ event: stored, reason: "sealed_unreadable", error: sealedError });
      continue;
    }
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
