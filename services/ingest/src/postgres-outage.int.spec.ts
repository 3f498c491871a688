// Postgres killed (-9) and restarted under a running ingest: commands answer `unavailable`
// meanwhile, work again afterwards, and the relay reconnects and publishes every event once.
import { decodeRelayedEvents } from "@cairn/bus";
import { CairnError, eventStreamName } from "@cairn/contracts";
import { infraTest, startPostgres, waitFor } from "@cairn/testing";
import { jetstreamManager } from "@nats-io/jetstream";
import { describe, expect } from "vitest";
import { alice, startIngestUnderTest } from "./testing/ingest-under-test.ts";

describe("ingest with a Postgres outage", () => {
  infraTest("answers unavailable while Postgres is down, then writes and relays again", async ({ nats }) => {
    const postgres = await startPostgres();
    try {
      const databaseUrl = await postgres.createDatabase("outage");
      const ingest = await startIngestUnderTest(databaseUrl, nats.url);
      const jsm = await jetstreamManager(ingest.client);
      await jsm.streams.delete(eventStreamName).catch(() => false);
      try {
        const create = (i: number) =>
          ingest.send("memory.create", {
            principal: alice,
            idempotencyKey: `outage-${i}`,
            memory: { slot: `s-${i}`, content: `Note ${i}.` },
          });
        await create(1);
        await postgres.kill();
        const refused = await create(2).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(CairnError);
        expect((refused as CairnError).code).toBe("unavailable");
        await postgres.restart();
        const written = await waitFor(() => create(2), {
          timeoutMs: 20_000,
          description: "a write to succeed again",
        });
        await create(3);
        expect(written.version).toBe(1);
        const { rows } = await ingest.pool.query("select event_id from cairn_events order by position");
        expect(rows).toHaveLength(3);
        // Three writes, three commits: three messages, each event once.
        await waitFor(
          async () => {
            const info = await jsm.streams.info(eventStreamName);
            expect(info.state.messages).toBe(3);
          },
          { timeoutMs: 20_000, description: "the relay to publish all three events" },
        );
        const ids: string[] = [];
        for (let seq = 1; seq <= 3; seq += 1) {
          const m = await jsm.streams.getMessage(eventStreamName, { seq });
          if (m) ids.push(...decodeRelayedEvents(m).events.map((e) => e.eventId));
        }
        expect(ids).toEqual(rows.map((r) => r.event_id));
      } finally {
        await ingest.stop();
      }
    } finally {
      await postgres.stop();
    }
  });
});
