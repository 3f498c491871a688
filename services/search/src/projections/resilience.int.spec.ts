// Redelivery, duplicates, lost deliveries, poison events and outages of Redis and NATS: the
// projections end up with every event applied exactly once, in log order.
import { randomUUID } from "node:crypto";
import { eventStreamName, type StoredEvent } from "@cairn/contracts";
import { prepareBatch } from "@cairn/projection-runtime";
import { infraTest, startNats, startRedis, waitFor } from "@cairn/testing";
import { jetstreamManager } from "@nats-io/jetstream";
import { describe, expect } from "vitest";
import { inspectReadModels } from "../testing/read-model-inspector.ts";
import { logLevel, principals, searchTest as test } from "../testing/search-test.ts";
import { startSearchUnderTest } from "../testing/search-under-test.ts";

const { alice } = principals;

async function lexicalIds(
  search: { candidates: (r: never) => Promise<{ candidates: { id: string }[] }> },
  query: string,
) {
  const reply = await search.candidates({
    principal: alice,
    query,
    mode: "lexical",
    candidateK: 500,
  } as never);
  return reply.candidates.map((c) => c.id).sort();
}

describe("projection delivery", () => {
  test("events delivered twice (a redelivery, a republish after the duplicate window) apply once", async ({
    search,
    inspect,
  }) => {
    const { id, event: recorded } = await search.log.record({ content: "Applied exactly once." });
    const revised = await search.log.change(id, "memory.revised", {
      content: "Applied exactly once, revised.",
    });
    await search.settle();
    // The same events again under new message ids, so JetStream's dedup does not drop them.
    await search.log.publish([recorded, revised, recorded], { msgId: (e) => `${e.eventId}-again` });
    const marker = await search.log.change(id, "memory.verified", {
      verifiedAt: "2026-11-02T00:00:00.000Z",
      note: null,
    });
    await search.settle();
    expect(await inspect.lexicalDocument(id)).toMatchObject({
      version: 3,
      content: "Applied exactly once, revised.",
    });
    expect(await inspect.vectorDocument(id)).toMatchObject({ version: 3 });
    expect(await inspect.checkpoints()).toEqual({ lexical: marker.position, vector: marker.position });
    const { rows } = await search.pool.query("select * from cairn_projections.dead_letters");
    expect(rows).toEqual([]);
  });

  test("a write that lost a race for the checkpoint has no effect", async ({ search, inspect }) => {
    const { id, event } = await search.log.record({ content: "Compare and set." });
    await search.settle();
    const { lexical, vector } = inspect.models;
    const [decoded] = await prepareBatch(lexical, [event], inspect.models.sealRing).then((b) => b.events);
    for (const projection of [lexical, vector]) {
      const generation = (await projection.generations.active()) as number;
      const replayed = await projection.apply({
        generation,
        writer: { kind: "live" },
        expected: event.position - 1,
        next: event.position,
        events: decoded ? [decoded] : [],
      });
      expect(replayed.outcome).toBe("stale");
    }
    expect(await inspect.lexicalDocument(id)).toMatchObject({ version: 1 });
  });

  test("an event JetStream never delivered is read from the log before the next one", async ({
    search,
    inspect,
  }) => {
    const skipped = await search.log.record({ content: "Skipped by the relay.", publish: false });
    const delivered = await search.log.record({ content: "Delivered normally." });
    await search.settle();
    expect(await inspect.lexicalDocument(skipped.id)).toMatchObject({ content: "Skipped by the relay." });
    expect(await inspect.vectorDocument(skipped.id)).toMatchObject({ content: "Skipped by the relay." });
    expect(await inspect.checkpoints()).toEqual({
      lexical: delivered.event.position,
      vector: delivered.event.position,
    });
  });

  test("a delivered event the log does not hold is dead-lettered, not applied: the log is the truth", async ({
    search,
    inspect,
  }) => {
    const real = await search.log.record({ content: "A real memory." });
    await search.settle();
    const forged = { ...real.event, eventId: randomUUID(), position: real.event.position + 1000 };
    await search.log.publish([forged]);
    const next = await search.log.record({ content: "The next real memory." });
    await search.settle();
    expect(await inspect.checkpoints()).toEqual({
      lexical: next.event.position,
      vector: next.event.position,
    });
    // A slow consumer finds `next` in the log while it handles the forged delivery: it applies
    // `next` first (so the checkpoints, and settle, may get there) and only then records the
    // dead letter. Wait for both projections' records, then compare them exactly.
    const rows = await waitFor(
      async () => {
        const { rows } = await search.pool.query<{ projection: string; reason: string; event_id: string }>(
          "select projection, reason, event_id::text from cairn_projections.dead_letters order by projection",
        );
        return rows.length >= 2 && rows;
      },
      { timeoutMs: 10_000, description: "both projections to dead-letter the forged event" },
    );
    expect(rows).toEqual([
      { projection: "search.lexical", reason: "not_in_log", event_id: forged.eventId },
      { projection: "search.vector", reason: "not_in_log", event_id: forged.eventId },
    ]);
  });

  test("poison events are dead-lettered and terminated; the events after them still apply", async ({
    search,
    inspect,
  }) => {
    await search.log.publishRaw("cairn.evt.acme.memory.memory_recorded", "{not json");
    await search.log.publishRaw("cairn.evt.acme.memory.memory_recorded", JSON.stringify({ hello: "world" }));
    const orphan = await search.log.change("00000000-0000-4000-8000-00000000dead", "memory.revised", {
      content: "a change to a memory that was never recorded",
    });
    const [invalid] = await search.log.append(`memory-00000000-0000-4000-8000-00000000beef`, "memory", [
      { type: "memory.recorded", data: { id: "00000000-0000-4000-8000-00000000beef", content: 42 } },
    ]);
    const good = await search.log.record({ content: "After the poison." });
    await search.settle();

    expect(await lexicalIds(search as never, "poison")).toEqual([good.id]);
    expect(await inspect.vectorDocument(good.id)).not.toBeNull();
    expect(await inspect.checkpoints()).toEqual({
      lexical: good.event.position,
      vector: good.event.position,
    });

    const { rows } = await search.pool.query<{ projection: string; position: string | null; reason: string }>(
      "select projection, position, reason from cairn_projections.dead_letters order by projection, position nulls first, reason",
    );
    const expected = (projection: string) => [
      { projection, position: null, reason: "bad_envelope" },
      { projection, position: null, reason: "not_json" },
      { projection, position: String(orphan.position), reason: "cannot_apply" },
      { projection, position: String((invalid as StoredEvent).position), reason: "bad_data" },
    ];
    // Each unreadable message is recorded by the consumer that received it (both consumers receive both).
    expect(rows).toEqual([...expected("search.lexical"), ...expected("search.vector")]);

    // Terminated, not redelivered: nothing is left pending on either consumer.
    const jsm = await jetstreamManager(search.client);
    for (const durable of ["search-lexical", "search-vector"]) {
      await waitFor(async () => {
        const info = await jsm.consumers.info(eventStreamName, durable);
        expect(info.num_ack_pending).toBe(0);
        expect(info.num_pending).toBe(0);
      });
    }
  });
});

describe("outages", () => {
  infraTest(
    "Redis killed while events are projected: lexical queries fail cleanly, then the projection converges",
    async ({ databaseUrl, nats, redisPrefix }) => {
      // Its own Redis, without persistence: after the restart the read model is gone entirely.
      await using redis = await startRedis();
      const search = await startSearchUnderTest(
        { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, redisPrefix },
        { env: { CAIRN_LOG_LEVEL: logLevel } },
      );
      const inspect = await inspectReadModels(search.env);
      try {
        const before: string[] = [];
        for (let i = 0; i < 10; i += 1)
          before.push((await search.log.record({ content: `outage note ${i}` })).id);
        await search.settle();

        await redis.kill();
        const during: string[] = [];
        for (let i = 10; i < 20; i += 1)
          during.push((await search.log.record({ content: `outage note ${i}` })).id);

        await expect(
          search.candidates({ principal: alice, query: "outage", mode: "lexical" }),
        ).rejects.toMatchObject({
          code: "unavailable",
        });
        // Hybrid still answers from the vector read model, which keeps projecting.
        await waitFor(
          async () => {
            const hybrid = await search.candidates({
              principal: alice,
              query: "outage note",
              mode: "hybrid",
              candidateK: 50,
            });
            expect(hybrid.unavailable).toEqual(["lexical"]);
            expect(hybrid.candidates).toHaveLength(20);
          },
          { timeoutMs: 15_000 },
        );

        await redis.restart();
        const last = await search.log.lastPosition();
        await search.status({ afterPosition: last, waitTimeoutMs: 20_000 });
        expect(await lexicalIds(search as never, "outage")).toEqual([...before, ...during].sort());
        expect(await inspect.checkpoints()).toEqual({ lexical: last, vector: last });
      } finally {
        await inspect.close();
        await search.stop();
      }
    },
  );

  infraTest(
    "NATS down: the projections keep up from the log, and the consumers resume when it is back",
    async ({ databaseUrl, redis, redisPrefix }) => {
      await using nats = await startNats();
      const search = await startSearchUnderTest(
        { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, redisPrefix },
        { env: { CAIRN_LOG_LEVEL: logLevel, CAIRN_SEARCH_CATCH_UP_MS: "300" } },
      );
      const inspect = await inspectReadModels(search.env);
      try {
        await search.log.record({ content: "before the outage" });
        await search.settle();
        await nats.kill();
        const during = await search.log.record({ content: "written while NATS is down", publish: false });
        await waitFor(async () => expect(await inspect.lexicalDocument(during.id)).not.toBeNull(), {
          timeoutMs: 10_000,
        });
        await waitFor(async () => expect(await inspect.vectorDocument(during.id)).not.toBeNull(), {
          timeoutMs: 10_000,
        });

        await nats.restart();
        await waitFor(
          async () => {
            await search.client.flush();
            await (await jetstreamManager(search.client)).streams.info(eventStreamName);
          },
          { timeoutMs: 15_000 },
        );
        const after = await search.log.record({ content: "after the outage" });
        await search.settle(20_000);
        expect(await inspect.checkpoints()).toEqual({
          lexical: after.event.position,
          vector: after.event.position,
        });
      } finally {
        await inspect.close();
        await search.stop();
      }
    },
  );
});
