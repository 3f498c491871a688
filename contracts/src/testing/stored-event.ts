// Stored events for tests that need the log's envelope without a log: what a test does not
// care about (ids, metadata) is filled in.
import { randomUUID } from "node:crypto";
import { type EventData, type EventType, streamTypeOf } from "../events/catalog.ts";
import type { EventMeta, StoredEvent } from "../events/envelope.ts";

export function testMeta(overrides: Partial<EventMeta> = {}): EventMeta {
  return {
    tenant: "acme",
    actor: "alice",
    correlationId: "c",
    causationId: null,
    traceContext: {},
    recordedAt: "2026-11-01T00:00:00.000Z",
    ...overrides,
  };
}

/** One stored event with what a test does not care about filled in. */
export function storedEvent<T extends EventType>(
  type: T,
  data: EventData<T>,
  options: { streamId: string; version: number; position: number; meta?: Partial<EventMeta> },
): StoredEvent<T, EventData<T>> {
  return {
    eventId: randomUUID(),
    position: options.position,
    streamId: options.streamId,
    streamType: streamTypeOf(type),
    version: options.version,
    type,
    schemaVersion: 1,
    data,
    meta: testMeta(options.meta),
  };
}
