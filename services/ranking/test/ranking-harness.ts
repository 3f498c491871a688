// Runs the ranking service in-process against real Postgres, NATS and Redis, with a clock the
// test moves; events are appended to the real log and published as the relay would.
import { call, connectBus, ensureEventStream } from "@cairn/bus";
import {
  type CairnEvent,
  type MemoryDocument,
  type Principal,
  type RerankCandidate,
  type RpcDefinition,
  type RpcReplyData,
  streamTypeOf,
} from "@cairn/contracts";
import { createDatabasePool, migrateToLatest } from "@cairn/event-store";
import { memoryRecord } from "@cairn/memory-model/testing";
import { createTestLog } from "@cairn/projection-runtime/testing";
import { type ServiceHandle, startService } from "@cairn/service-runtime";
import { infraTest } from "@cairn/testing";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { Redis } from "ioredis";
import { createRankingService } from "../src/ranking-service.ts";

export type Harness = {
  tenant: string;
  principal: Principal;
  nc: NatsConnection;
  clock: { now: Date };
  /** Appends an event to the log and publishes it; returns its position. */
  publish: (event: CairnEvent & { streamId: string; at?: string; actor?: string }) => Promise<number>;
  /** Calls a ranking RPC as the harness's principal. */
  request: <D extends RpcDefinition>(rpc: D, payload: Record<string, unknown>) => Promise<RpcReplyData<D>>;
  /** Stops the service and starts it again; `wipe` first deletes its read models from Redis. */
  restart: (options: { wipe: boolean }) => Promise<void>;
  stop: () => Promise<void>;
};

export async function startHarness(options: {
  databaseUrl: string;
  natsUrl: string;
  redisUrl: string;
  name: string;
  env?: Record<string, string>;
}): Promise<Harness> {
  const clock = { now: new Date("2025-06-01T12:00:00Z") };
  await migrateToLatest(options.databaseUrl);
  const pool = createDatabasePool({ connectionString: options.databaseUrl, max: 4 });
  const nc = await connectBus({ url: options.natsUrl, name: `test-${options.name}` });
  await ensureEventStream(await jetstreamManager(nc));
  const log = await createTestLog({ pool, nc });
  const tenant = options.name.replaceAll("_", "-").toLowerCase();
  const start = () =>
    startService(createRankingService({ clock: () => clock.now }), {
      ...process.env,
      CAIRN_DATABASE_URL: options.databaseUrl,
      CAIRN_NATS_URL: options.natsUrl,
      CAIRN_REDIS_URL: options.redisUrl,
      CAIRN_RANKING_REDIS_PREFIX: `${options.name}:`,
      CAIRN_RANKING_CONSUMER_PREFIX: options.name,
      CAIRN_LOG_LEVEL: "warn",
      CAIRN_RANKING_WAIT_MS: "3000",
      CAIRN_METRICS_PORT: "off",
      ...options.env,
    });
  let service: ServiceHandle = await start();
  const principal: Principal = { tenant, agent: "agent-a", role: "agent", primary: false };
  return {
    tenant,
    principal,
    nc,
    clock,
    publish: async (event) => {
      const [stored] = await log.append(event.streamId, streamTypeOf(event.type), [event], {
        author: { tenant, agent: event.actor ?? "agent-a" },
        recordedAt: event.at ?? clock.now.toISOString(),
      });
      return (stored as { position: number }).position;
    },
    request: (rpc, payload) => call(nc, rpc, { principal, ...payload } as never, { timeoutMs: 15_000 }),
    restart: async ({ wipe }) => {
      await service.stop();
      if (wipe) {
        const redis = new Redis(options.redisUrl);
        let cursor = "0";
        do {
          const [next, keys] = await redis.scan(cursor, "MATCH", `${options.name}:*`, "COUNT", 1000);
          cursor = next;
          if (keys.length > 0) await redis.del(...keys);
        } while (cursor !== "0");
        redis.disconnect();
      }
      service = await start();
    },
    stop: async () => {
      await service.stop();
      await nc.close();
      await pool.end();
    },
  };
}

/** `infraTest` with a `ranking` fixture: the service started for the test, with `env` over its defaults. */
export function rankingTest(env?: Record<string, string>) {
  return infraTest.extend("ranking", async ({ databaseUrl, nats, redis, uniqueName }, { onCleanup }) => {
    const harness = await startHarness({
      databaseUrl,
      natsUrl: nats.url,
      redisUrl: redis.url,
      name: uniqueName,
      env,
    });
    onCleanup(() => harness.stop());
    return harness;
  });
}

export type MemorySpec = {
  id?: string;
  content: string;
  title?: string;
  keys?: string[];
  entities?: MemoryDocument["entities"];
  sentiment?: number;
  scope?: MemoryDocument["scope"];
  agent?: string;
};

/** What a memory of `spec` holds, as its creation event and its document both give it. */
function fieldsOf(spec: MemorySpec & { id: string }) {
  return {
    id: spec.id,
    scope: spec.scope ?? "team",
    agent: spec.agent ?? "agent-a",
    slot: `slot-${spec.id.slice(0, 8)}`,
    content: spec.content,
    title: spec.title ?? spec.content,
    keys: spec.keys ?? [],
    entities: spec.entities ?? [],
    sentiment: spec.sentiment ?? 0,
    contentHash: spec.id,
  };
}

/** A `memory.recorded` event for `spec`. */
export function recorded(spec: MemorySpec & { id: string }): CairnEvent & { streamId: string } {
  return { type: "memory.recorded", streamId: `memory-${spec.id}`, data: memoryRecord(fieldsOf(spec)) };
}

/**
 * A search candidate for a memory as ranking receives it: search's scores only (ranking reads
 * the memory itself from its own read model).
 */
export function candidateOf(spec: { id: string }, rank: number): RerankCandidate {
  return { id: spec.id, lexical: { rank, score: 10 - rank }, vector: null, fused: 1 - rank / 100 };
}
