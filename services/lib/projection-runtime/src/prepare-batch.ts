// Turns events read from the log into what a projection applies: decoded against the catalog
// (only the types it handles: the others merely move its checkpoint), with sealed memory text
// opened when it reads text. What cannot be decoded or opened is returned as dead letters; the
// rest of the batch still applies.
import {
  type DecodedEvent,
  decodeStoredEvent,
  isEventDecodeError,
  isEventType,
  openSealedEvents,
  SealedContentError,
  type SealRing,
  type StoredEvent,
} from "@cairn/contracts";
import type { DeadLetter } from "./dead-letter.ts";
import type { Projection } from "./projection.ts";

export type PreparedBatch = { events: DecodedEvent[]; letters: DeadLetter[] };

/**
 * Opens the sealed text of events; a value that does not open with its key (damaged, or sealed
 * for another memory) cannot become readable by retrying, so that event alone is set aside.
 */
async function openEach(
  events: DecodedEvent[],
  sealRing: SealRing,
): Promise<{ opened: DecodedEvent[]; letters: DeadLetter[] }> {
  try {
    return { opened: (await openSealedEvents(events, sealRing)) as DecodedEvent[], letters: [] };
  } catch (error) {
    if (!(error instanceof SealedContentError)) throw error;
  }
  const opened: DecodedEvent[] = [];
  const letters: DeadLetter[] = [];
  for (const event of events) {
    try {
      opened.push(...((await openSealedEvents([event], sealRing)) as DecodedEvent[]));
    } catch (error) {
      if (!(error instanceof SealedContentError)) throw error;
      letters.push({ event, reason: "sealed_unreadable", error: error.message, attempts: 1 });
    }
  }
  return { opened, letters };
}

export async function prepareBatch(
  projection: Pick<Projection, "handles" | "readsText" | "name">,
  stored: readonly StoredEvent[],
  sealRing: SealRing | undefined,
): Promise<PreparedBatch> {
  const events: DecodedEvent[] = [];
  const letters: DeadLetter[] = [];
  for (const event of stored) {
    if (!isEventType(event.type)) {
      // Written by a newer version: this projection cannot know whether it should apply it.
      letters.push({
        event,
        reason: "unknown_type",
        error: `event type ${event.type} is not in this version's catalog; upgrade the service and rebuild ${projection.name}`,
        attempts: 1,
      });
      continue;
    }
    if (!projection.handles.has(event.type)) continue;
    try {
      events.push(decodeStoredEvent(event));
    } catch (error) {
      if (!isEventDecodeError(error)) throw error;
      letters.push({ event, reason: error.reason, error: error.message, attempts: 1 });
    }
  }
  if (!projection.readsText || events.length === 0) return { events, letters };
  if (!sealRing) throw new Error(`${projection.name} reads memory text but was given no sealring`);
  const { opened, letters: unreadable } = await openEach(events, sealRing);
  return { events: opened, letters: [...letters, ...unreadable] };
}
