// Builders for tests that need memory events without the write path: a record with every
// field filled in, stored events of one stream with consecutive versions and positions, and
// the document the memory model folds from a record.
import { randomUUID } from "node:crypto";
import type { DecodedEventOf, EventData, EventMeta, EventType, MemoryDocument } from "@cairn/contracts";
import { storedEvent } from "@cairn/contracts/testing";
import { foldMemoryDocument } from "../evolve-memory-document.ts";
import { recordedEventType } from "../memory-events.ts";
import { memoryStreamId } from "../memory-stream-id.ts";

export type MemoryFields = Partial<EventData<"memory.recorded">>;

/** A `memory.recorded` (or proposal / handoff creation) payload with defaults for what is not given. */
export function memoryRecord(fields: MemoryFields & { agent: string }): EventData<"memory.recorded"> {
  const content = fields.content ?? "a memory";
  return {
    id: fields.id ?? randomUUID(),
    tier: fields.tier ?? "memory",
    scope: fields.scope ?? "team",
    agent: fields.agent,
    supersedes: fields.supersedes ?? null,
    promotedFrom: fields.promotedFrom ?? null,
    slot: fields.slot ?? `slot-${randomUUID().slice(0, 8)}`,
    kind: fields.kind ?? "note",
    content,
    title: fields.title ?? "",
    tags: fields.tags ?? [],
    aliases: fields.aliases ?? [],
    keys: fields.keys ?? [],
    entities: fields.entities ?? [],
    links: fields.links ?? [],
    sentiment: fields.sentiment ?? 0,
    contentHash: fields.contentHash ?? `sha256:${randomUUID()}`,
    project: fields.project ?? null,
    source: fields.source ?? null,
    validFrom: fields.validFrom ?? null,
    ...(fields.consolidatedFrom ? { consolidatedFrom: fields.consolidatedFrom } : {}),
    ...(fields.level ? { level: fields.level } : {}),
    ...(fields.episode ? { episode: fields.episode } : {}),
  };
}

/**
 * Stored events of one memory stream: each call of `next` is the stream's next version at the
 * next log position (positions are shared by every stream built from one `eventLine`).
 */
export function eventLine(start = 0) {
  let position = start;
  return {
    stream(memoryId: string, meta: Partial<EventMeta> = {}) {
      let version = 0;
      return {
        next<T extends EventType>(type: T, data: EventData<T>, at?: string): DecodedEventOf<T> {
          position += 1;
          version += 1;
          return storedEvent(type, data, {
            streamId: memoryStreamId(memoryId),
            version,
            position,
            meta: { ...meta, ...(at ? { recordedAt: at } : {}) },
          }) as unknown as DecodedEventOf<T>;
        },
      };
    },
  };
}

/**
 * A memory's document as the memory model folds it from its creation event (a `memoryRecord`
 * of the tier, tenant `acme`, recorded at the test clock's start), with `fields` over it.
 */
export function memoryDocument(fields: Partial<MemoryDocument> = {}): MemoryDocument {
  const id = fields.id ?? randomUUID();
  const tier = fields.tier ?? "memory";
  const created = eventLine()
    .stream(id)
    .next(recordedEventType[tier], memoryRecord({ id, tier, agent: fields.agent ?? "alice" }));
  return { ...(foldMemoryDocument([created]) as MemoryDocument), ...fields };
}
