// A deployment for the recall benches: its own Postgres, Redis and NATS, a log seeded with N
// bench memories, every read model rebuilt from it (the rebuilds timed), the relay's
// checkpoint at the log's end and an agent key per bench tenant. The services are started by
// the bench, as processes, from whichever checkout it compares.
import { createServer } from "node:net";
import { createEventStore, type EventStore, migrateToLatest, storeCheckpoint } from "@cairn/event-store";
import { createApiKey } from "@cairn/gateway";
import { rebuildFromHost } from "@cairn/projection-runtime";
import { openRankingProjections, rankingEnvSchema } from "@cairn/ranking";
import { openReadModels, projectionHostOf, searchEnvSchema } from "@cairn/search";
import { parseEnv } from "@cairn/service-runtime";
import { createLogger } from "@cairn/telemetry";
import { startNats, startPostgres, startRedis } from "@cairn/testing/servers";
import pg from "pg";
import { type ServiceProcess, spawnService } from "../../helpers/service-processes.ts";
import { agents, appendInput, memory, pick, random, seedLog, tenants } from "./bench-memories.ts";
import { progress } from "./report.ts";

export type SeededDeployment = {
  postgres: Awaited<ReturnType<typeof startPostgres>>;
  redis: Awaited<ReturnType<typeof startRedis>>;
  nats: Awaited<ReturnType<typeof startNats>>;
  pool: pg.Pool;
  store: EventStore;
  /** The services' environment (database, Redis, NATS, prefixes). */
  env: Record<string, string>;
  /** The bench's random source, after seeding and the keys. */
  rand: () => number;
  /** An agent key of each bench tenant. */
  keysOf: Map<string, string>;
  seedSeconds: number;
  rebuild: {
    lexical: number;
    vector: number;
    lexicalSeconds: number;
    vectorSeconds: number;
    signals: number;
    keys: number;
  };
  /** Stops what was started, the latest first (also on a failure half-way). */
  stop(): Promise<void>;
  /** Runs `stop` before the rest (the bench's own clients and processes). */
  onStop(stop: () => Promise<unknown>): void;
};

export async function seededDeployment(
  size: number,
  options: { postgresSettings?: Record<string, string> } = {},
): Promise<SeededDeployment> {
  const silent = createLogger("bench", "silent");
  // Postgres as a deployment would size it: the HNSW index in shared buffers (the test
  // fixture's default is 32 MB).
  const [postgres, redis, nats] = await Promise.all([
    startPostgres({ settings: { shared_buffers: "1GB", ...options.postgresSettings } }),
    startRedis(),
    startNats(),
  ]);
  const stops: (() => Promise<unknown>)[] = [() => postgres.stop(), () => redis.stop(), () => nats.stop()];
  const stop = async () => {
    for (const s of stops.splice(0)) await s().catch(() => undefined);
  };
  try {
    const databaseUrl = await postgres.createDatabase("bench");
    await migrateToLatest(databaseUrl);
    const env = {
      CAIRN_DATABASE_URL: databaseUrl,
      CAIRN_REDIS_URL: redis.url,
      CAIRN_NATS_URL: nats.url,
      CAIRN_REDIS_PREFIX: "bench:",
      CAIRN_LOG_LEVEL: "warn",
      CAIRN_METRICS_PORT: "off",
    };
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    pool.on("error", (error) => console.error(`bench pool: ${error.message}`));
    stops.unshift(() => pool.end());
    const store = createEventStore(pool);

    // 1. Seed the log: the rows ingest would write, inserted in bulk (ingest's own write rate
    // is `pnpm bench ingest`; here it would only make the seeding slow).
    const rand = random(size);
    let started = performance.now();
    const batch = 1000;
    for (let done = 0; done < size; done += batch) {
      const inputs = Array.from({ length: Math.min(batch, size - done) }, (_, i) =>
        appendInput(memory(rand, done + i)),
      );
      await seedLog(pool, inputs);
      progress(`seed ${size}`, Math.min(done + batch, size), size, started);
    }
    const seedSeconds = (performance.now() - started) / 1000;

    // 2. Rebuild both read models from the log into empty ones.
    const models = await openReadModels(parseEnv(searchEnvSchema, env), silent);
    const rebuildRate = async (name: "lexical" | "vector") => {
      started = performance.now();
      const result = await rebuildFromHost(projectionHostOf(models), `search.${name}`, {
        batchSize: 500,
        dropDelayMs: 0,
        onProgress: (p) =>
          progress(`rebuild ${name} ${size}`, Math.min(p.position, p.target), p.target, p.startedAt),
      });
      const seconds = (performance.now() - started) / 1000;
      return { rate: result.events / seconds, seconds };
    };
    const lexical = await rebuildRate("lexical");
    const vector = await rebuildRate("vector");
    await models.close();

    // 3. Ranking's read models, the same way.
    const ranking = openRankingProjections(parseEnv(rankingEnvSchema, env), silent);
    const rankingRate = async (name: "signals" | "keys") => {
      started = performance.now();
      const result = await rebuildFromHost(ranking, `ranking.${name}`, {
        batchSize: 500,
        dropDelayMs: 0,
        onProgress: (p) =>
          progress(`rebuild ${name} ${size}`, Math.min(p.position, p.target), p.target, p.startedAt),
      });
      return result.events / ((performance.now() - started) / 1000);
    };
    const signals = await rankingRate("signals");
    const keys = await rankingRate("keys");
    await ranking.close();

    // 4. The relay publishes new writes from here on; an agent key per tenant.
    await storeCheckpoint(pool, "relay:jetstream", await store.lastPosition());
    const keysOf = new Map<string, string>();
    for (const tenant of tenants) {
      const created = await createApiKey(pool, { tenant, agent: pick(rand, agents), role: "agent" });
      keysOf.set(tenant, created.key);
    }
    return {
      postgres,
      redis,
      nats,
      pool,
      store,
      env,
      rand,
      keysOf,
      seedSeconds,
      rebuild: {
        lexical: lexical.rate,
        vector: vector.rate,
        lexicalSeconds: lexical.seconds,
        vectorSeconds: vector.seconds,
        signals,
        keys,
      },
      stop,
      onStop: (s) => stops.unshift(s),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A free TCP port on this machine. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Waits until a service process logs that it started (or fails). */
async function ready(service: ServiceProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!service.logs.some((l) => /service started/.test(l))) {
    if (service.child.exitCode !== null)
      throw new Error(`${service.name} exited:\n${service.logs.slice(-20).join("\n")}`);
    if (Date.now() > deadline)
      throw new Error(`${service.name} not ready:\n${service.logs.slice(-20).join("\n")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Ingest, search, ranking and the gateway as processes on the deployment, from the checkout
 * at `cwd` (this one by default), each started once the one before is: the gateway answers
 * on `http://127.0.0.1:<port>`. Rate limits are lifted and maintenance's scheduler is off.
 */
export async function startRecallServices(
  deployment: Pick<SeededDeployment, "env">,
  options: { port: number; cwd?: string; env?: (name: string) => Record<string, string> },
): Promise<ServiceProcess[]> {
  const processes: ServiceProcess[] = [];
  try {
    for (const name of ["ingest", "search", "ranking", "gateway"] as const) {
      const service = spawnService(
        name,
        {
          ...deployment.env,
          CAIRN_LOG_LEVEL: "info",
          CAIRN_PORT: String(options.port),
          CAIRN_RATE_LIMIT_PER_MINUTE: "1000000",
          CAIRN_RATE_LIMIT_BURST: "100000",
          CAIRN_MAINTENANCE_SCHEDULER: "0",
          ...options.env?.(name),
        },
        options.cwd === undefined ? {} : { cwd: options.cwd },
      );
      processes.push(service);
      await ready(service);
    }
    return processes;
  } catch (error) {
    await stopServices(processes);
    throw error;
  }
}

/** Stops service processes, the last started first. */
export async function stopServices(processes: readonly ServiceProcess[]): Promise<void> {
  for (const p of [...processes].reverse()) await p.stop();
}
