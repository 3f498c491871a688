// The relay against real Postgres and a real nats-server (one per test, so each test has
// its own CAIRN_EVENTS stream and may kill its server).
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { connectBus, decodeRelayedEvents } from "@cairn/bus";
import {
  type EventMeta,
  eventStreamName,
  type NewEvent,
  relaySubject,
  type StoredEvent,
} from "@cairn/contracts";
import { createDatabasePool, createEventStore, type EventStore, migrateToLatest } from "@cairn/event-store";
import { createLogger } from "@cairn/telemetry";
import { infraTest, type NatsHandle, startNats, waitFor } from "@cairn/testing";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import pg from "pg";
import { describe, expect } from "vitest";
import { type Relay, startRelay } from "./relay-committed-events.ts";

const logger = createLogger("relay-test", "silent");
const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

function meta(tenant = "acme"): EventMeta {
  return {
    tenant,
    actor: "alice",
    correlationId: randomUUID(),
    causationId: null,
    traceContext: { traceparent },
    recordedAt: new Date().toISOString(),
  };
}

function verified(): NewEvent {
  return {
    eventId: randomUUID(),
    type: "memory.verified",
    data: { verifiedAt: new Date().toISOString(), note: null },
  };
}

type Published = {
  seq: number;
  subject: string;
  msgId: string | undefined;
  traceparent: string | undefined;
  events: StoredEvent[];
  publishContexts: Record<string, string>[];
};

async function publishedMessages(nc: NatsConnection): Promise<Published[]> {
  const jsm = await jetstreamManager(nc);
  const { state } = await jsm.streams.info(eventStreamName);
  const out: Published[] = [];
  if (state.messages === 0) return out;
  for (let seq = state.first_seq; seq <= state.last_seq; seq += 1) {
    const m = await jsm.streams.getMessage(eventStreamName, { seq });
    if (!m) continue;
    const { events, publishContexts } = decodeRelayedEvents(m);
    out.push({
      seq,
      subject: m.subject,
      msgId: m.header.get("Nats-Msg-Id") || undefined,
      traceparent: m.header.get("traceparent") || undefined,
      events,
      publishContexts,
    });
  }
  return out;
}

async function publishedEvents(nc: NatsConnection): Promise<StoredEvent[]> {
  return (await publishedMessages(nc)).flatMap((m) => m.events);
}

/**
 * Every appended event in JetStream exactly once, in log order, a message per commit (none of
 * these is larger than a message), named by its transaction and first position.
 */
async function expectExactlyOnceInOrder(
  nc: NatsConnection,
  pool: pg.Pool,
  store: EventStore,
  timeoutMs = 20_000,
) {
  const log = await store.readAll({ after: 0, limit: 100_000 });
  const published = await waitFor(
    async () => {
      const p = await publishedEvents(nc);
      expect(p.length).toBeGreaterThanOrEqual(log.length);
      return p;
    },
    { timeoutMs, description: `JetStream to hold all ${log.length} events` },
  );
  expect(published.map((e) => e.eventId)).toEqual(log.map((e) => e.eventId));
  const { rows } = await pool.query<{ position: string; transaction_id: string }>(
    "select position, transaction_id::text from cairn_events order by position",
  );
  const commits = new Map<string, number[]>();
  for (const row of rows)
    commits.set(row.transaction_id, [...(commits.get(row.transaction_id) ?? []), Number(row.position)]);
  const messages = await publishedMessages(nc);
  expect(messages.map((m) => m.events.map((e) => e.position))).toEqual([...commits.values()]);
  expect(messages.map((m) => m.msgId)).toEqual(
    [...commits].map(([tx, positions]) => `${tx}:${positions[0]}`),
  );
  return published;
}

type Setup = {
  nats: NatsHandle;
  nc: NatsConnection;
  pool: pg.Pool;
  store: EventStore;
  relays: Relay[];
  relay(name?: string): Relay;
};

const test = infraTest.extend("setup", async ({ databaseUrl }, { onCleanup }) => {
  await migrateToLatest(databaseUrl);
  const nats = await startNats();
  const nc = await connectBus({ url: nats.url, name: "relay-test" });
  const pool = createDatabasePool({ connectionString: databaseUrl, role: "cairn_app", max: 8 });
  const relays: Relay[] = [];
  const setup: Setup = {
    nats,
    nc,
    pool,
    store: createEventStore(pool),
    relays,
    relay(name) {
      const relay = startRelay({
        pool,
        databaseUrl,
        databaseRole: "cairn_app",
        nc,
        logger,
        standbyRetryMs: 100,
        publishTimeoutMs: 1_000,
        ...(name ? { name } : {}),
      });
      relays.push(relay);
      return relay;
    },
  };
  onCleanup(async () => {
    await Promise.all(relays.map((r) => r.stop()));
    await nc.close();
    await pool.end();
    await nats.stop();
  });
  return setup;
});

describe("relay", () => {
  test("publishes committed events in log order: whole envelope, subject, msg id, trace context", async ({
    setup,
  }) => {
    const { store, nc } = setup;
    const relay = setup.relay();
    const a = await store.appendToStream({
      streamId: "memory-a",
      streamType: "memory",
      expectedVersion: "no_stream",
      events: [verified(), verified()],
      meta: meta(),
    });
    await store.appendToStream({
      streamId: `activity-${randomUUID()}`,
      streamType: "activity",
      expectedVersion: "no_stream",
      events: [
        {
          eventId: randomUUID(),
          type: "feedback.given",
          data: { memoryId: randomUUID(), useful: true, agent: "bob", note: null },
        },
      ],
      meta: meta("globex"),
    });
    const published = await expectExactlyOnceInOrder(nc, setup.pool, store);
    const messages = await publishedMessages(nc);
    // One message per commit: the two events of memory-a together, then the feedback.
    expect(messages.map((m) => [m.subject, m.events.length])).toEqual([
      [relaySubject, 2],
      [relaySubject, 1],
    ]);
    expect(published[0]).toEqual((await store.readStream("memory-a"))[0]);
    // Headers and each event's publish context are in the trace of the write (its trace id).
    const traceId = (header: string | undefined) => header?.split("-")[1];
    expect(messages.every((m) => traceId(m.traceparent) === traceId(traceparent))).toBe(true);
    for (const m of messages) {
      expect(m.publishContexts).toHaveLength(m.events.length);
      for (const c of m.publishContexts) expect(traceId(c.traceparent)).toBe(traceId(traceparent));
    }
    await relay.waitFor(a.positions[1] as number);
    expect(relay.status()).toMatchObject({ active: true, published: 3, lastError: null });
  });

  test("a late-committing transaction is neither skipped nor duplicated", async ({ setup, databaseUrl }) => {
    const { store, nc } = setup;
    setup.relay();
    const first = await store.appendToStream({
      streamId: "memory-first",
      streamType: "memory",
      expectedVersion: "no_stream",
      events: [verified()],
      meta: meta(),
    });
    await waitFor(async () => (await publishedEvents(nc)).length === 1);

    // A writer holds a position in an open transaction; a later event commits meanwhile.
    const slow = new pg.Client({ connectionString: databaseUrl });
    await slow.connect();
    try {
      await slow.query("begin");
      await slow.query(
        `insert into cairn_events (event_id, stream_id, stream_type, version, type, schema_version, data, meta)
         values ($1, 'memory-slow', 'memory', 1, 'memory.verified', 1, $2, $3)`,
        [
          randomUUID(),
          JSON.stringify({ verifiedAt: new Date().toISOString(), note: null }),
          JSON.stringify(meta()),
        ],
      );
      const later = await store.appendToStream({
        streamId: "memory-later",
        streamType: "memory",
        expectedVersion: "no_stream",
        events: [verified()],
        meta: meta(),
      });
      // The later event is committed, but the relay must not publish it ahead of the open one.
      await sleep(500);
      expect((await publishedEvents(nc)).map((e) => e.position)).toEqual(first.positions);
      await slow.query("commit");
      const published = await expectExactlyOnceInOrder(nc, setup.pool, store);
      expect(published.map((e) => e.streamId)).toEqual(["memory-first", "memory-slow", "memory-later"]);
      expect(published.at(-1)?.position).toBe(later.positions[0]);
    } finally {
      await slow.end().catch(() => {});
    }
  });

  test("with NATS killed mid-run and restarted, every event arrives exactly once and in order", async ({
    setup,
  }) => {
    const { store, nc, nats } = setup;
    const relay = setup.relay();
    const total = 300;
    let written = 0;
    const writer = (async () => {
      for (let i = 0; i < total; i += 1) {
        await store.appendToStream({
          streamId: `memory-${i % 7}`,
          streamType: "memory",
          expectedVersion: "any",
          events: [verified()],
          meta: meta(),
        });
        written += 1;
        if (i % 10 === 0) await sleep(5);
      }
    })();
    await waitFor(() => written >= 60 && relay.status().published > 0, { timeoutMs: 10_000 });
    await nats.kill();
    const writtenWhileDown = written;
    // Writes keep succeeding while NATS is down.
    await waitFor(() => written >= Math.min(total, writtenWhileDown + 100), { timeoutMs: 10_000 });
    // The outage really hit the relay mid-run.
    await waitFor(() => relay.status().lastError !== null, { timeoutMs: 10_000 });
    await nats.restart();
    await writer;
    await expectExactlyOnceInOrder(nc, setup.pool, store, 30_000);
    // No message twice: the stream's sequence has no gap and no repeat.
    const seqs = (await publishedMessages(nc)).map((m) => m.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => (seqs[0] as number) + i));
  });

  test("republishing from an earlier checkpoint adds nothing to the stream (duplicate window)", async ({
    setup,
  }) => {
    const { store, nc } = setup;
    const relay = setup.relay();
    for (let i = 0; i < 20; i += 1) {
      await store.appendToStream({
        streamId: "memory-dup",
        streamType: "memory",
        expectedVersion: "any",
        events: [verified()],
        meta: meta(),
      });
    }
    await expectExactlyOnceInOrder(nc, setup.pool, store);
    await relay.stop();
    // As after a crash between publishing and checkpointing: everything is sent again.
    const replay = setup.relay("relay:replay-from-zero");
    const last = await store.lastPosition();
    await replay.waitFor(last);
    expect(replay.status().published).toBe(20);
    await expectExactlyOnceInOrder(nc, setup.pool, store);
  });

  test("with two ingest copies one relay is active; when it stops the other takes over", async ({
    setup,
  }) => {
    const { store, nc } = setup;
    const one = setup.relay();
    const two = setup.relay();
    await waitFor(() => one.status().active || two.status().active);
    await sleep(300);
    expect([one.status().active, two.status().active].filter(Boolean)).toHaveLength(1);
    const [active, standby] = one.status().active ? [one, two] : [two, one];
    const append = () =>
      store.appendToStream({
        streamId: "memory-ha",
        streamType: "memory",
        expectedVersion: "any",
        events: [verified()],
        meta: meta(),
      });
    for (let i = 0; i < 10; i += 1) await append();
    await expectExactlyOnceInOrder(nc, setup.pool, store);
    await active.stop();
    await waitFor(() => standby.status().active, { timeoutMs: 10_000 });
    for (let i = 0; i < 10; i += 1) await append();
    await expectExactlyOnceInOrder(nc, setup.pool, store);
    expect(standby.status().published).toBe(10);
  });
});
