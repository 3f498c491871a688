// Test support: writes events to the real Postgres log and publishes them on JetStream the
// way the ingest relay does (JSON body, `Nats-Msg-Id` = event id), so the search service can
// be tested without the write path. It can also append without publishing (a lost delivery)
// and publish what it likes (duplicates, garbage).
import { randomUUID } from "node:crypto";
import { ensureEventStream } from "@cairn/bus";
import {
  type EventType,
  eventStreamName,
  type MemoryDocument,
  type NewEvent,
  type RelayedEvents,
  relaySubject,
  type StoredEvent,
  type StreamType,
  streamIdFor,
  streamTypeOf,
} from "@cairn/contracts";
import { createEventStore, type EventStore } from "@cairn/event-store";
import { recordedEventType } from "@cairn/memory-model";
import { type MemoryFields, memoryRecord } from "@cairn/memory-model/testing";
import { type JetStreamClient, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type pg from "pg";

export type Author = { tenant: string; agent: string };

export type { MemoryFields };
export { memoryRecord };

export type TestLog = {
  store: EventStore;
  /** Appends events to a stream; publishes them unless `publish: false`. */
  append(
    streamId: string,
    streamType: StreamType,
    events: { type: EventType; data: unknown }[],
    options?: { author?: Author; publish?: boolean; recordedAt?: string },
  ): Promise<StoredEvent[]>;
  /** Records a memory (or proposal / handoff with `tier`); returns its id and event. */
  record(fields?: MemoryFields & { author?: Author; publish?: boolean; recordedAt?: string }): Promise<{
    id: string;
    event: StoredEvent;
  }>;
  /** Appends one more event to a memory stream. */
  change(
    id: string,
    type: EventType,
    data: unknown,
    options?: { author?: Author; publish?: boolean; recordedAt?: string },
  ): Promise<StoredEvent>;
  setSynonyms(tenant: string, synonyms: string[][]): Promise<StoredEvent>;
  /** A change of a tenant's settings, as an admin would make it. */
  changeSettings(tenant: string, settings: Record<string, unknown>): Promise<StoredEvent>;
  publish(events: readonly StoredEvent[], options?: { msgId?: (e: StoredEvent) => string }): Promise<void>;
  publishRaw(subject: string, body: string): Promise<void>;
  /** The highest position in the log (what a test wrote last). */
  lastPosition(): Promise<number>;
};

export const defaultAuthor: Author = { tenant: "acme", agent: "alice" };

/** Deletes the event stream (and its consumers) left by an earlier test and creates it afresh. */
export async function freshEventStream(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(eventStreamName).catch(() => false);
  await ensureEventStream(jsm);
}

export async function createTestLog(options: { pool: pg.Pool; nc: NatsConnection }): Promise<TestLog> {
  const store = createEventStore(options.pool);
  const js: JetStreamClient = jetstream(options.nc);

  const log: TestLog = {
    store,
    async append(streamId, streamType, events, appendOptions = {}) {
      const author = appendOptions.author ?? defaultAuthor;
      const newEvents = events.map(
        (e) => ({ eventId: randomUUID(), type: e.type, data: e.data }) as NewEvent,
      );
      await store.appendToStream({
        streamId,
        streamType,
        expectedVersion: "any",
        events: newEvents,
        meta: {
          tenant: author.tenant,
          actor: author.agent,
          correlationId: randomUUID(),
          causationId: null,
          traceContext: {},
          recordedAt: appendOptions.recordedAt ?? new Date().toISOString(),
        },
      });
      const stored = await store.findEvents(newEvents.map((e) => e.eventId));
      if (appendOptions.publish !== false) await log.publish(stored);
      return stored;
    },
    async record(fields = {}) {
      const author = fields.author ?? defaultAuthor;
      const data = memoryRecord({ ...fields, agent: fields.agent ?? author.agent });
      const [event] = await log.append(
        streamIdFor("memory", data.id),
        "memory",
        [{ type: recordedEventType[data.tier], data }],
        {
          author,
          ...(fields.publish === undefined ? {} : { publish: fields.publish }),
          ...(fields.recordedAt === undefined ? {} : { recordedAt: fields.recordedAt }),
        },
      );
      return { id: data.id, event: event as StoredEvent };
    },
    async change(id, type, data, changeOptions = {}) {
      const [event] = await log.append(
        streamIdFor("memory", id),
        streamTypeOf(type),
        [{ type, data }],
        changeOptions,
      );
      return event as StoredEvent;
    },
    setSynonyms: (tenant, synonyms) => log.changeSettings(tenant, { synonyms }),
    async changeSettings(tenant, settings) {
      const [event] = await log.append(
        streamIdFor("tenant", tenant),
        "tenant",
        [{ type: "tenant.settings_changed", data: settings }],
        { author: { tenant, agent: "admin" } },
      );
      return event as StoredEvent;
    },
    async publish(events, publishOptions = {}) {
      // One message per event, as the relay publishes a commit of one event.
      for (const event of events) {
        const body: RelayedEvents = { events: [event], publishContexts: [event.meta.traceContext] };
        await js.publish(relaySubject, JSON.stringify(body), {
          msgID: publishOptions.msgId ? publishOptions.msgId(event) : event.eventId,
        });
      }
    },
    async publishRaw(subject, body) {
      await js.publish(subject, body);
    },
    // Everything written, committed or not yet below the readers' horizon: the event store's
    // `lastPosition` stops below the oldest open transaction (a projection's write, say), and
    // a test that waits for less than everything it wrote would read too early.
    async lastPosition() {
      const { rows } = await options.pool.query<{ max: string | null }>(
        "select max(position) as max from cairn_events",
      );
      return Number(rows[0]?.max ?? 0);
    },
  };
  return log;
}

/** Picks the fields of a document a test compares (timestamps differ between runs). */
export function comparable(doc: MemoryDocument): Omit<MemoryDocument, "createdAt" | "updatedAt"> {
  const { createdAt: _c, updatedAt: _u, ...rest } = doc;
  return rest;
}
