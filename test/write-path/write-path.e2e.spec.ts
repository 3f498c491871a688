// The write path end to end, as deployed: two ingest processes sharing one database and one
// NATS, a client sending commands over NATS request/reply, events arriving in JetStream. One
// copy is killed mid-run; writes go on through the other, whose relay takes over.
import { call, decodeRelayedEvents } from "@cairn/bus";
import {
  type CairnError,
  commandRpc,
  eventStreamName,
  healthRpc,
  type IngestCommandName,
  type PlanResult,
  type Principal,
  type RpcDefinition,
  type StoredEvent,
  type WriteResult,
} from "@cairn/contracts";
import { infraTest, waitFor } from "@cairn/testing";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { describe, expect } from "vitest";
import { type ServiceProcess, spawnService } from "../helpers/service-processes.ts";

const alice: Principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };

/** An event as JetStream holds it: in a message of its commit, with its publish span's context. */
type Published = { event: StoredEvent; msgId: string; traceparent: string };

async function published(nc: NatsConnection): Promise<Published[]> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(eventStreamName).catch(() => undefined);
  if (!info || info.state.messages === 0) return [];
  const out: Published[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq += 1) {
    const m = await jsm.streams.getMessage(eventStreamName, { seq });
    if (!m) continue;
    const { events, publishContexts } = decodeRelayedEvents(m);
    for (const [i, event] of events.entries()) {
      out.push({
        event,
        msgId: m.header.get("Nats-Msg-Id"),
        traceparent: publishContexts[i]?.traceparent ?? "",
      });
    }
  }
  return out;
}

async function logOf(
  databaseUrl: string,
): Promise<{ event_id: string; position: string; committed_by: string }[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (
      await client.query(
        "select event_id, position, transaction_id::text as committed_by from cairn_events order by position",
      )
    ).rows;
  } finally {
    await client.end();
  }
}

describe("write path", () => {
  infraTest(
    "two ingest copies: commands answered by either, every event in JetStream once and in log order",
    async ({ databaseUrl, nats, uniqueName }) => {
      const env = (i: number) => ({
        CAIRN_DATABASE_URL: databaseUrl,
        CAIRN_NATS_URL: nats.url,
        CAIRN_INSTANCE: `${uniqueName}-ingest-${i}`,
        CAIRN_MIGRATE_ON_START: i === 0 ? "1" : "0",
      });
      const copies: ServiceProcess[] = [];
      const client = await connect({ servers: nats.url });
      // This worker's NATS is shared with other tests: start from an empty event stream.
      const jsm = await jetstreamManager(client);
      await jsm.streams.delete(eventStreamName).catch(() => false);
      const send = <T = WriteResult>(name: IngestCommandName, payload: Record<string, unknown>) =>
        call(client, commandRpc(name) as RpcDefinition, payload, { timeoutMs: 15_000 }) as Promise<T>;
      try {
        copies.push(spawnService("ingest", env(0)));
        await waitFor(() => call(client, healthRpc("ingest"), {}, { timeoutMs: 1000 }), {
          timeoutMs: 30_000,
        });
        copies.push(spawnService("ingest", env(1)));
        const instances = await waitFor(
          async () => {
            const seen = new Set<string>();
            for (let i = 0; i < 30; i += 1) {
              seen.add((await call(client, healthRpc("ingest"), {}, { timeoutMs: 1000 })).instance);
            }
            return seen.size === 2 ? seen : false;
          },
          { timeoutMs: 30_000, description: "both copies to answer" },
        );
        expect(instances.size).toBe(2);

        // A lifecycle across copies: the dry run's token is honoured by whichever copy executes.
        const created = await send("memory.create", {
          principal: alice,
          memory: { slot: "release", content: "Releases are cut on Mondays." },
        });
        const updated = await send("memory.update", {
          principal: alice,
          id: created.id,
          expectedVersion: created.version,
          changes: { content: "Releases are cut on Mondays and Thursdays." },
        });
        for (let i = 0; i < 6; i += 1) {
          const plan = await send<PlanResult>("memory.delete", {
            principal: alice,
            id: created.id,
            expectedVersion: updated.version,
            dryRun: true,
          });
          expect(plan.token).toEqual(expect.any(String));
        }
        const plan = await send<PlanResult>("memory.delete", {
          principal: alice,
          id: created.id,
          expectedVersion: updated.version,
          dryRun: true,
        });
        const deleted = await send("memory.delete", {
          principal: alice,
          id: created.id,
          expectedVersion: updated.version,
          token: plan.token,
        });
        expect(deleted.version).toBe(3);
        const refused = await send("memory.restore", {
          principal: alice,
          id: created.id,
          expectedVersion: 2,
        }).catch((e: unknown) => e);
        expect((refused as CairnError).code).toBe("version_conflict");

        // Kill one copy (-9) while writes go on: callers retry what timed out or failed.
        let written = 0;
        const writer = (async () => {
          for (let i = 0; i < 120; i += 1) {
            for (let attempt = 1; ; attempt += 1) {
              try {
                await call(
                  client,
                  commandRpc("memory.create"),
                  {
                    principal: alice,
                    idempotencyKey: `w-${i}`,
                    memory: { slot: `note-${i}`, content: `Note ${i}.`, keys: ["notes"] },
                  },
                  { timeoutMs: 3_000 },
                );
                break;
              } catch (error) {
                if (attempt >= 10) throw error;
              }
            }
            written += 1;
          }
        })();
        await waitFor(() => written >= 40, { timeoutMs: 30_000 });
        await copies[0]?.stop("SIGKILL");
        await writer;

        const log = await logOf(databaseUrl);
        // Idempotency keys: a retried create wrote nothing twice.
        expect(log.length).toBe(3 + 120 * 2);
        const events = await waitFor(
          async () => {
            const p = await published(client);
            expect(p.length).toBeGreaterThanOrEqual(log.length);
            return p;
          },
          { timeoutMs: 30_000, description: "every event in JetStream" },
        );
        expect(events.map((p) => p.event.eventId)).toEqual(log.map((r) => r.event_id));
        // One message per commit, named by its transaction and first position: the same name
        // when a copy takes over and publishes it again, so JetStream keeps it once.
        const firstOfCommit = new Map<string, string>();
        for (const r of log)
          if (!firstOfCommit.has(r.committed_by)) firstOfCommit.set(r.committed_by, r.position);
        expect(events.map((p) => p.msgId)).toEqual(
          log.map((r) => `${r.committed_by}:${firstOfCommit.get(r.committed_by)}`),
        );
        expect(events.map((p) => p.event.position)).toEqual(log.map((r) => Number(r.position)));
        // Each event carries the trace of the command that wrote it: its message names the
        // relay's publish span, a span of that trace (not the command's span itself).
        for (const p of events) {
          expect(p.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
          const [, traceId, spanId] = (p.traceparent ?? "").split("-");
          const [, writeTraceId, writeSpanId] = (p.event.meta.traceContext.traceparent ?? "").split("-");
          expect(traceId).toBe(writeTraceId);
          expect(spanId).not.toBe(writeSpanId);
        }
      } finally {
        await client.close();
        await Promise.all(copies.map((c) => c.stop()));
      }
    },
    120_000,
  );
});
