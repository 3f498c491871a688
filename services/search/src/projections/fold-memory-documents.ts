// Folding a batch of decoded events into the changes both search read models write: memory
// documents (the one memory model's fold) and tenants' synonym tables. Shared by live
// projection, rebuild and repair, so all three build exactly the same documents.
import type { DecodedEvent, EventType, MemoryDocument, RetrievalSettings } from "@cairn/contracts";
import {
  evolveMemoryDocument,
  isMemoryEvent,
  isMemoryFoldError,
  memoryEventTypes,
  memoryIdOfStream,
} from "@cairn/memory-model";
import type { RefusedEvent } from "@cairn/projection-runtime";

/** What search's read models apply: every memory event, and tenant settings (synonyms, retrieval). */
export const searchHandles: ReadonlySet<EventType> = new Set<EventType>([
  ...memoryEventTypes,
  "tenant.settings_changed",
]);

export type DocumentFold = {
  /** Documents changed by the batch, in their final state. */
  documents: Map<string, MemoryDocument>;
  /** What those documents were before the batch (absent: they did not exist). */
  previous: Map<string, MemoryDocument>;
  /** Synonym tables changed by the batch, per tenant. */
  synonyms: Map<string, string[][]>;
  /** Retrieval settings changed by the batch, per tenant. */
  retrieval: Map<string, RetrievalSettings>;
  refused: RefusedEvent[];
};

/**
 * Ids of the memories a batch changes that may already have a document: those whose first
 * event in the batch is not the one that created them (a created stream has nothing to load;
 * in a rebuild that is most of them).
 */
export function existingMemoryIdsOf(events: readonly DecodedEvent[]): string[] {
  const first = new Map<string, number>();
  for (const e of events) {
    const id = e.streamType === "memory" ? memoryIdOfStream(e.streamId) : undefined;
    if (id && !first.has(id)) first.set(id, e.version);
  }
  return [...first].filter(([, version]) => version !== 1).map(([id]) => id);
}

/**
 * Applies events in order to the current documents (those not in `current` do not exist yet).
 * An event that cannot follow its document is refused and leaves the document as it was; the
 * rest of the batch still applies.
 */
export function foldMemoryDocuments(
  events: readonly DecodedEvent[],
  current: ReadonlyMap<string, MemoryDocument>,
): DocumentFold {
  const working = new Map(current);
  const documents = new Map<string, MemoryDocument>();
  const previous = new Map<string, MemoryDocument>();
  const synonyms = new Map<string, string[][]>();
  const retrieval = new Map<string, RetrievalSettings>();
  const refused: RefusedEvent[] = [];
  for (const event of events) {
    if (isMemoryEvent(event)) {
      const id = memoryIdOfStream(event.streamId);
      if (id === undefined) {
        refused.push({
          event,
          reason: "cannot_apply",
          error: `${event.type} on ${event.streamId}, not a memory stream`,
        });
        continue;
      }
      try {
        const next = evolveMemoryDocument(working.get(id) ?? null, event);
        const before = current.get(id);
        if (before && !documents.has(id)) previous.set(id, before);
        working.set(id, next);
        documents.set(id, next);
      } catch (error) {
        if (!isMemoryFoldError(error)) throw error;
        refused.push({ event, reason: "cannot_apply", error: error.message });
      }
    } else if (event.type === "tenant.settings_changed") {
      if (event.data.synonyms !== undefined) synonyms.set(event.meta.tenant, event.data.synonyms);
      if (event.data.retrieval !== undefined) retrieval.set(event.meta.tenant, event.data.retrieval);
    }
  }
  return { documents, previous, synonyms, retrieval, refused };
}
