import { randomUUID } from "node:crypto";
import { type EventMeta, type NewEvent, newSeal } from "@cairn/contracts";
import { infraTest } from "@cairn/testing";
import pg from "pg";
import { describe, expect } from "vitest";
import {
  createDatabasePool,
  createEventStore,
  createMemorySealStore,
  EventIdReuseError,
  migrateToLatest,
  ReservationTakenError,
  readCheckpoint,
  SealExistsError,
  serviceDatabaseRole,
  storeCheckpoint,
  VersionConflictError,
} from "./index.ts";

const meta: EventMeta = {
  tenant: "acme",
  actor: "agent-1",
  correlationId: "c-1",
  causationId: null,
  traceContext: {},
  recordedAt: "2026-01-01T00:00:00.000Z",
};

function archived(reason = "done"): NewEvent {
  return { eventId: randomUUID(), type: "memory.archived", data: { reason } };
}

async function setUp(databaseUrl: string, role: string | undefined = serviceDatabaseRole) {
  await migrateToLatest(databaseUrl);
  const pool = createDatabasePool({ connectionString: databaseUrl, role, max: 12 });
  return { pool, store: createEventStore(pool) };
}

describe("event store", () => {
  infraTest(
    "appends events with contiguous versions and reads them back in log order",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      try {
        const first = await store.appendToStream({
          streamId: "memory-a",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived("1"), archived("2")],
          meta,
        });
        const second = await store.appendToStream({
          streamId: "memory-b",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived("3")],
          meta,
        });
        const third = await store.appendToStream({
          streamId: "memory-a",
          streamType: "memory",
          expectedVersion: 2,
          events: [archived("4")],
          meta,
        });
        expect(first.nextVersion).toBe(2);
        expect(third.nextVersion).toBe(3);
        const streamA = await store.readStream("memory-a");
        expect(streamA.map((e) => e.version)).toEqual([1, 2, 3]);
        expect(streamA.map((e) => (e.data as { reason: string }).reason)).toEqual(["1", "2", "4"]);
        expect(streamA[0]).toMatchObject({
          streamType: "memory",
          type: "memory.archived",
          schemaVersion: 1,
          meta,
        });
        const all = await store.readAll({ after: 0, limit: 100 });
        expect(all.map((e) => e.position)).toEqual([
          ...first.positions,
          ...second.positions,
          ...third.positions,
        ]);
        expect(await store.lastPosition()).toBe(third.positions[0]);
        expect(await store.readAll({ after: first.positions[1] as number, limit: 1 })).toHaveLength(1);
        expect(await store.readStream("memory-none")).toEqual([]);
      } finally {
        await pool.end();
      }
    },
  );

  infraTest(
    "refuses an append whose expected version is stale, with a typed conflict",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      try {
        await store.appendToStream({
          streamId: "memory-a",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived()],
          meta,
        });
        const stale = store.appendToStream({
          streamId: "memory-a",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived()],
          meta,
        });
        await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
        await expect(stale).rejects.toMatchObject({ code: "version_conflict", actualVersion: 1 });
        await expect(
          store.appendToStream({
            streamId: "memory-missing",
            streamType: "memory",
            expectedVersion: 1,
            events: [archived()],
            meta,
          }),
        ).rejects.toMatchObject({ code: "version_conflict", actualVersion: 0 });
        const any = await store.appendToStream({
          streamId: "memory-a",
          streamType: "memory",
          expectedVersion: "any",
          events: [archived()],
          meta,
        });
        expect(any.nextVersion).toBe(2);
        expect((await store.readStream("memory-a")).map((e) => e.version)).toEqual([1, 2]);
      } finally {
        await pool.end();
      }
    },
  );

  infraTest(
    "of N concurrent appends at the same expected version exactly one wins",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      try {
        await store.appendToStream({
          streamId: "memory-hot",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived()],
          meta,
        });
        const attempts = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            store.appendToStream({
              streamId: "memory-hot",
              streamType: "memory",
              expectedVersion: 1,
              events: [archived(`writer ${i}`), archived(`writer ${i} again`)],
              meta,
            }),
          ),
        );
        const won = attempts.filter((a) => a.status === "fulfilled");
        const lost = attempts.filter((a) => a.status === "rejected");
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(19);
        for (const l of lost) expect(l.reason).toBeInstanceOf(VersionConflictError);
        const stream = await store.readStream("memory-hot");
        expect(stream.map((e) => e.version)).toEqual([1, 2, 3]);
        const writers = new Set(
          stream.slice(1).map((e) => (e.data as { reason: string }).reason.split(" ")[1]),
        );
        expect(writers.size).toBe(1);
      } finally {
        await pool.end();
      }
    },
  );

  infraTest("a retried append with the same event ids writes nothing new", async ({ databaseUrl }) => {
    const { pool, store } = await setUp(databaseUrl);
    try {
      const events = [archived("a"), archived("b")];
      const input = {
        streamId: "memory-r",
        streamType: "memory" as const,
        expectedVersion: "no_stream" as const,
        events,
        meta,
      };
      const first = await store.appendToStream(input);
      await store.appendToStream({ ...input, expectedVersion: 2, events: [archived("c")] });
      const retried = await store.appendToStream(input);
      expect(retried).toEqual(first);
      const concurrentRetries = await Promise.all([store.appendToStream(input), store.appendToStream(input)]);
      expect(concurrentRetries).toEqual([first, first]);
      expect((await store.readAll({ after: 0, limit: 10 })).length).toBe(3);
      await expect(
        store.appendToStream({
          ...input,
          expectedVersion: 3,
          events: [events[0] as NewEvent, archived("d")],
        }),
      ).rejects.toBeInstanceOf(EventIdReuseError);
      expect((await store.readAll({ after: 0, limit: 10 })).length).toBe(3);
    } finally {
      await pool.end();
    }
  });

  infraTest("a reader never skips an event whose transaction commits late", async ({ databaseUrl }) => {
    const { pool, store } = await setUp(databaseUrl);
    // A writer that took its position and is still open (it bypasses the append lock on
    // purpose: the reader must be safe on its own).
    const slow = new pg.Client({ connectionString: databaseUrl });
    await slow.connect();
    try {
      const before = await store.appendToStream({
        streamId: "memory-early",
        streamType: "memory",
        expectedVersion: "no_stream",
        events: [archived()],
        meta,
      });
      await slow.query("begin");
      const { rows } = await slow.query<{ position: string }>(
        `insert into cairn_events (event_id, stream_id, stream_type, version, type, schema_version, data, meta)
         values ($1, 'memory-slow', 'memory', 1, 'memory.archived', 1, '{"reason":"slow"}', $2) returning position`,
        [randomUUID(), JSON.stringify(meta)],
      );
      const slowPosition = Number(rows[0]?.position);
      const after = await store.appendToStream({
        streamId: "memory-fast",
        streamType: "memory",
        expectedVersion: "no_stream",
        events: [archived()],
        meta,
      });
      expect(after.positions[0]).toBeGreaterThan(slowPosition);

      // The fast event is committed, yet it is not readable while the slow one is open.
      let checkpoint = 0;
      const seen: number[] = [];
      const drain = async () => {
        for (;;) {
          const batch = await store.readAll({ after: checkpoint, limit: 1 });
          if (batch.length === 0) return;
          for (const e of batch) seen.push(e.position);
          checkpoint = batch.at(-1)?.position ?? checkpoint;
        }
      };
      await drain();
      expect(seen).toEqual(before.positions);
      expect(await store.lastPosition()).toBe(before.positions[0]);

      await slow.query("commit");
      await drain();
      expect(seen).toEqual([...before.positions, slowPosition, ...after.positions]);
      expect(await store.lastPosition()).toBe(after.positions[0]);
    } finally {
      await slow.end().catch(() => {});
      await pool.end();
    }
  });

  infraTest(
    "a reader following concurrent appends sees every event once, in position order",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      try {
        let writing = true;
        const seen: number[] = [];
        const reader = (async () => {
          let checkpoint = 0;
          for (;;) {
            const done = !writing;
            const batch = await store.readAll({ after: checkpoint, limit: 7 });
            for (const e of batch) seen.push(e.position);
            checkpoint = batch.at(-1)?.position ?? checkpoint;
            if (done && batch.length === 0) return;
          }
        })();
        await Promise.all(
          Array.from({ length: 8 }, async (_, w) => {
            for (let i = 0; i < 40; i += 1) {
              await store.appendToStream({
                // Shared streams too: concurrent "any" appends to one stream retry on the unique version.
                streamId: i % 2 === 0 ? `memory-writer-${w}` : "memory-shared",
                streamType: "memory",
                expectedVersion: "any",
                events: [archived(`${w}-${i}`), archived(`${w}-${i}b`)],
                meta,
              });
            }
          }),
        );
        writing = false;
        await reader;
        const log = (await store.readAll({ after: 0, limit: 10_000 })).map((e) => e.position);
        expect(log).toHaveLength(8 * 40 * 2);
        expect(seen).toEqual(log);
        expect([...seen].sort((a, b) => a - b)).toEqual(seen);
        const shared = await store.readStream("memory-shared");
        expect(shared.map((e) => e.version)).toEqual(Array.from({ length: shared.length }, (_, i) => i + 1));
      } finally {
        await pool.end();
      }
    },
  );

  infraTest(
    "the log refuses UPDATE, DELETE and TRUNCATE, for the service role and a superuser",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      const superuser = new pg.Client({ connectionString: databaseUrl });
      await superuser.connect();
      try {
        await store.appendToStream({
          streamId: "memory-x",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived("original")],
          meta,
        });
        // The service role (what `pool` runs as) may append and read but has no UPDATE/DELETE right.
        expect((await pool.query("select current_user")).rows[0]).toEqual({
          current_user: serviceDatabaseRole,
        });
        await expect(pool.query("update cairn_events set type = 'x'")).rejects.toThrow(/permission denied/);
        await expect(pool.query("delete from cairn_events")).rejects.toThrow(/permission denied/);
        await expect(pool.query("truncate cairn_events")).rejects.toThrow(/permission denied/);
        // It appends only through cairn_append (which orders positions), never around it.
        await expect(
          pool.query(
            `insert into cairn_events (event_id, stream_id, stream_type, version, type, schema_version, data, meta)
           values (gen_random_uuid(), 'memory-y', 'memory', 1, 'memory.archived', 1, '{}', '{}')`,
          ),
        ).rejects.toThrow(/permission denied/);
        // Nor through the checks without the lock that orders positions.
        await expect(pool.query("select * from cairn_append_unlocked('[]'::jsonb)")).rejects.toThrow(
          /permission denied/,
        );
        // Even a superuser is stopped by the trigger.
        await expect(superuser.query("update cairn_events set type = 'x'")).rejects.toThrow(/append-only/);
        await expect(superuser.query("delete from cairn_events")).rejects.toThrow(/append-only/);
        await expect(superuser.query("truncate cairn_events")).rejects.toThrow(/append-only/);
        const [event] = await store.readStream("memory-x");
        expect(event?.data).toEqual({ reason: "original" });
      } finally {
        await superuser.end();
        await pool.end();
      }
    },
  );

  infraTest(
    "reservations keep a key with one stream, in the same transaction as the append",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      try {
        const key = "slot|acme|memory|team|-|-|package-manager";
        await store.appendToStream({
          streamId: "memory-1",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived()],
          meta,
          reservations: { claim: [key] },
        });
        const taken = store.appendToStream({
          streamId: "memory-2",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived()],
          meta,
          reservations: { claim: [key] },
        });
        await expect(taken).rejects.toBeInstanceOf(ReservationTakenError);
        await expect(taken).rejects.toMatchObject({ key, holderStreamId: "memory-1" });
        // Nothing of the refused append reached the log.
        expect(await store.readStream("memory-2")).toEqual([]);

        // Claiming a key the stream holds already is fine; concurrent claims: one wins.
        await store.appendToStream({
          streamId: "memory-1",
          streamType: "memory",
          expectedVersion: 1,
          events: [archived()],
          meta,
          reservations: { claim: [key] },
        });
        const racing = await Promise.allSettled(
          ["memory-3", "memory-4", "memory-5"].map((streamId) =>
            store.appendToStream({
              streamId,
              streamType: "memory",
              expectedVersion: "no_stream",
              events: [archived()],
              meta,
              reservations: { claim: ["content|acme|abc"] },
            }),
          ),
        );
        expect(racing.filter((r) => r.status === "fulfilled")).toHaveLength(1);

        // One append moves the key from memory-1 to memory-6 (a supersede does this).
        await store.appendToStreams([
          {
            streamId: "memory-1",
            streamType: "memory",
            expectedVersion: 2,
            events: [archived()],
            meta,
            reservations: { release: [key] },
          },
          {
            streamId: "memory-6",
            streamType: "memory",
            expectedVersion: "no_stream",
            events: [archived()],
            meta,
            reservations: { claim: [key] },
          },
        ]);
        const { rows } = await pool.query("select stream_id from cairn_reservations where key = $1", [key]);
        expect(rows).toEqual([{ stream_id: "memory-6" }]);
      } finally {
        await pool.end();
      }
    },
  );

  infraTest("an append to several streams is all or nothing", async ({ databaseUrl }) => {
    const { pool, store } = await setUp(databaseUrl);
    try {
      await store.appendToStream({
        streamId: "memory-old",
        streamType: "memory",
        expectedVersion: "no_stream",
        events: [archived()],
        meta,
      });
      await expect(
        store.appendToStreams([
          {
            streamId: "memory-new",
            streamType: "memory",
            expectedVersion: "no_stream",
            events: [archived()],
            meta,
          },
          { streamId: "memory-old", streamType: "memory", expectedVersion: 5, events: [archived()], meta },
        ]),
      ).rejects.toBeInstanceOf(VersionConflictError);
      expect(await store.readStream("memory-new")).toEqual([]);
      // An empty append only asserts the version.
      const [asserted] = await store.appendToStreams([
        { streamId: "memory-old", streamType: "memory", expectedVersion: 1, events: [], meta },
      ]);
      expect(asserted).toEqual({ streamId: "memory-old", nextVersion: 1, positions: [] });
      // Retrying an append that wrote to one stream and asserted another gives the first answer.
      const mixed = [
        {
          streamId: "memory-other",
          streamType: "memory" as const,
          expectedVersion: "no_stream" as const,
          events: [archived()],
          meta,
        },
        { streamId: "memory-old", streamType: "memory" as const, expectedVersion: 1, events: [], meta },
      ];
      const first = await store.appendToStreams(mixed);
      expect(await store.appendToStreams(mixed)).toEqual(first);
    } finally {
      await pool.end();
    }
  });

  infraTest(
    "reads several streams from their snapshots in one call: each snapshot the log backs, and the events after it",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      try {
        const append = (streamId: string, count: number) =>
          store.appendToStream({
            streamId,
            streamType: "memory",
            expectedVersion: "no_stream",
            events: Array.from({ length: count }, (_, i) => archived(`${streamId} ${i + 1}`)),
            meta,
          });
        const long = await append("memory-long", 5);
        await append("memory-plain", 2);
        const moved = await append("memory-moved", 3);
        const other = await append("memory-other-model", 2);
        const model = "test-fold-v1";
        await store.saveStreamSnapshot("memory-long", {
          model,
          version: 3,
          position: long.positions[2] as number,
          state: { upTo: 3 },
        });
        // Named at a position where the log has another event: not backed, not returned.
        await store.saveStreamSnapshot("memory-moved", {
          model,
          version: 2,
          position: (moved.positions[1] as number) + 1000,
          state: { upTo: 2 },
        });
        await store.saveStreamSnapshot("memory-other-model", {
          model: "test-fold-v0",
          version: 1,
          position: other.positions[0] as number,
          state: { upTo: 1 },
        });

        const ids = ["memory-long", "memory-plain", "memory-moved", "memory-other-model", "memory-absent"];
        const read = await store.readStreamsFromSnapshots(ids, model);
        expect([...read.keys()]).toEqual(ids);
        const reasons = (id: string) =>
          read.get(id)?.events.map((e) => (e.data as { reason: string }).reason);
        expect(read.get("memory-long")?.snapshot).toEqual({
          model,
          version: 3,
          position: long.positions[2],
          state: { upTo: 3 },
        });
        expect(reasons("memory-long")).toEqual(["memory-long 4", "memory-long 5"]);
        for (const [id, count] of [
          ["memory-plain", 2],
          ["memory-moved", 3],
          ["memory-other-model", 2],
        ] as const) {
          expect(read.get(id)?.snapshot, id).toBeNull();
          expect(reasons(id), id).toEqual(Array.from({ length: count }, (_, i) => `${id} ${i + 1}`));
        }
        expect(read.get("memory-absent")).toEqual({ snapshot: null, events: [] });
        // One stream alone reads the same.
        expect(await store.readStreamFromSnapshot("memory-long", model)).toEqual(read.get("memory-long"));
        expect(await store.readStreamsFromSnapshots([], model)).toEqual(new Map());
      } finally {
        await pool.end();
      }
    },
  );

  infraTest("checkpoints only move forward", async ({ databaseUrl }) => {
    const { pool } = await setUp(databaseUrl);
    try {
      expect(await readCheckpoint(pool, "relay")).toBe(0);
      await storeCheckpoint(pool, "relay", 7);
      await storeCheckpoint(pool, "relay", 3);
      expect(await readCheckpoint(pool, "relay")).toBe(7);
    } finally {
      await pool.end();
    }
  });
});

describe("group commit", () => {
  infraTest(
    "concurrent appends share commits, each keeps its own answer, and log order stays transaction order",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      try {
        await store.appendToStream({
          streamId: "memory-taken",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived()],
          meta,
          reservations: { claim: ["slot|acme|taken"] },
        });
        const fine = Array.from({ length: 60 }, (_, i) =>
          store.appendToStream({
            streamId: `memory-${i}`,
            streamType: "memory",
            expectedVersion: "no_stream",
            events: [archived(`${i}`), archived(`${i} again`)],
            meta,
          }),
        );
        // Sent among them: a stale version and a taken reservation fail alone.
        const stale = store.appendToStream({
          streamId: "memory-taken",
          streamType: "memory",
          expectedVersion: 5,
          events: [archived("stale")],
          meta,
        });
        const clash = store.appendToStream({
          streamId: "memory-clash",
          streamType: "memory",
          expectedVersion: "no_stream",
          events: [archived("clash")],
          meta,
          reservations: { claim: ["slot|acme|taken"] },
        });
        const [results, staleError, clashError] = await Promise.all([
          Promise.all(fine),
          stale.then(
            () => undefined,
            (error: unknown) => error,
          ),
          clash.then(
            () => undefined,
            (error: unknown) => error,
          ),
        ]);
        expect(staleError).toBeInstanceOf(VersionConflictError);
        expect(clashError).toBeInstanceOf(ReservationTakenError);
        for (const [i, r] of results.entries()) {
          expect(r.nextVersion).toBe(2);
          const events = await store.readStream(`memory-${i}`);
          expect(events.map((e) => e.position)).toEqual(r.positions);
        }
        expect(await store.readStream("memory-clash")).toEqual([]);
        const { rows } = await pool.query<{ transactions: string; events: string }>(
          "select count(distinct transaction_id) as transactions, count(*) as events from cairn_events",
        );
        expect(Number(rows[0]?.events)).toBe(121);
        // Fewer commits than appends: they were written together.
        expect(Number(rows[0]?.transactions)).toBeLessThan(61);
        // Readers read in (transaction, position) order: it must be position order.
        const order = await pool.query<{ position: string }>(
          "select position from cairn_events order by transaction_id::text::bigint, position",
        );
        const positions = order.rows.map((r) => Number(r.position));
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
      } finally {
        await pool.end();
      }
    },
  );

  infraTest(
    "of concurrent appends at one expected version one wins, also when they are written together",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      try {
        const attempts = await Promise.allSettled(
          Array.from({ length: 30 }, (_, i) =>
            store.appendToStream({
              streamId: "memory-hot",
              streamType: "memory",
              expectedVersion: "no_stream",
              events: [archived(`writer ${i}`)],
              meta,
            }),
          ),
        );
        expect(attempts.filter((a) => a.status === "fulfilled")).toHaveLength(1);
        for (const a of attempts) {
          if (a.status === "rejected") expect(a.reason).toBeInstanceOf(VersionConflictError);
        }
        expect(await store.readStream("memory-hot")).toHaveLength(1);
      } finally {
        await pool.end();
      }
    },
  );

  infraTest(
    "an append stores the seal of the memory it creates, and is refused when one exists",
    async ({ databaseUrl }) => {
      const { pool, store } = await setUp(databaseUrl);
      const seals = createMemorySealStore(pool);
      try {
        const memoryId = randomUUID();
        const seal = newSeal();
        const append = (s: Uint8Array, streamId: string) =>
          store.appendToStreams(
            [{ streamId, streamType: "memory", expectedVersion: "no_stream", events: [archived()], meta }],
            { seals: [{ memoryId, tenant: "acme", seal: s }] },
          );
        await append(seal, `memory-${memoryId}`);
        expect((await seals.sealsFor([memoryId])).get(memoryId)).toEqual({ state: "active", seal });
        // Another seal for the same memory: nothing is written, the stored seal stays.
        await expect(append(newSeal(), "memory-other")).rejects.toBeInstanceOf(SealExistsError);
        expect(await store.readStream("memory-other")).toEqual([]);
        expect((await seals.sealsFor([memoryId])).get(memoryId)).toEqual({ state: "active", seal });
        // A failed append leaves no seal behind.
        const orphan = randomUUID();
        await expect(
          store.appendToStreams(
            [
              {
                streamId: `memory-${memoryId}`,
                streamType: "memory",
                expectedVersion: "no_stream",
                events: [archived()],
                meta,
              },
            ],
            { seals: [{ memoryId: orphan, tenant: "acme", seal: newSeal() }] },
          ),
        ).rejects.toBeInstanceOf(VersionConflictError);
        expect((await seals.sealsFor([orphan])).size).toBe(0);
        // A purged memory's destroyed seal is never replaced.
        await seals.shred([memoryId]);
        const refused = append(newSeal(), "memory-after-purge");
        await expect(refused).rejects.toMatchObject({ memoryId, purged: true });
      } finally {
        await pool.end();
      }
    },
  );

  infraTest(
    "an append reads no table in full, even with plans made while the log was empty",
    async ({ databaseUrl }) => {
      await migrateToLatest(databaseUrl);
      // One connection: PL/pgSQL keeps a statement's plan for the connection's life, and these
      // are made while the log is empty, when reading the whole table costs least.
      const pool = createDatabasePool({ connectionString: databaseUrl, role: serviceDatabaseRole, max: 1 });
      const reader = new pg.Client({ connectionString: databaseUrl });
      await reader.connect();
      try {
        await reader.query("set stats_fetch_consistency = none");
        const stats = async () => {
          const { rows } = await reader.query<{ seq_scan: string; n_tup_ins: string }>(
            "select seq_scan, n_tup_ins from pg_stat_user_tables where relname = 'cairn_events'",
          );
          return { scans: Number(rows[0]?.seq_scan), inserted: Number(rows[0]?.n_tup_ins) };
        };
        const store = createEventStore(pool);
        // A log of a few pages, as a new deployment has after its first writes.
        for (let i = 0; i < 20; i += 1) {
          await store.appendToStream({
            streamId: `memory-${randomUUID()}`,
            streamType: "memory",
            expectedVersion: "no_stream",
            events: Array.from({ length: 10 }, () => archived("a reason long enough to fill a page sooner")),
            meta,
          });
        }
        await pool.query("select pg_stat_force_next_flush()");
        let before = await stats();
        for (let tries = 0; before.inserted < 200 && tries < 50; tries += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          before = await stats();
        }
        let events = 0;
        for (let i = 0; i < 12; i += 1) {
          const streamId = `memory-${randomUUID()}`;
          await store.appendToStream({
            streamId,
            streamType: "memory",
            expectedVersion: "no_stream",
            events: [archived()],
            meta,
            reservations: { claim: [`slot:acme:plans-${i}`] },
          });
          await store.appendToStream({
            streamId,
            streamType: "memory",
            expectedVersion: 1,
            events: [archived()],
            meta,
          });
          events += 2;
        }
        // The connection's counts reach the statistics when it is next idle.
        await pool.query("select pg_stat_force_next_flush()");
        let after = await stats();
        for (let tries = 0; after.inserted < before.inserted + events && tries < 50; tries += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          after = await stats();
        }
        expect(after.inserted).toBe(before.inserted + events);
        expect(after.scans).toBe(before.scans);
      } finally {
        await reader.end();
        await pool.end();
      }
    },
  );
});
