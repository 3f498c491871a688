// Memory documents folded straight from log events (decoded, sealed text opened): what reads
// as of a past point and a memory's history are made of. The same fold as the read models'.
import type { DecodedEvent, MemoryDocument, SealRing, StoredEvent } from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";
import { prepareBatch } from "@cairn/projection-runtime";
import { foldMemoryDocuments, searchHandles } from "../projections/fold-memory-documents.ts";

export type LogSources = {
  log: Pick<EventStore, "readStream" | "readStreams" | "positionAt" | "lastPosition" | "readTenantMemories">;
  sealRing: SealRing;
};

const reader = { name: "search.lexical" as const, handles: searchHandles, readsText: true };

/** The events decoded and opened; one that cannot be read is left out (as the read models do). */
export async function openEvents(
  sources: LogSources,
  stored: readonly StoredEvent[],
): Promise<DecodedEvent[]> {
  return (await prepareBatch(reader, stored, sources.sealRing)).events;
}

/** The documents these events fold to (each stream from its first event). */
export async function foldFromLog(
  sources: LogSources,
  stored: readonly StoredEvent[],
): Promise<Map<string, MemoryDocument>> {
  return foldMemoryDocuments(await openEvents(sources, stored), new Map()).documents;
}
