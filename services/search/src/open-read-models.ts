// Connections and read models, opened the same way by the service and by `pnpm cairn rebuild`.
import { setTimeout as sleep } from "node:timers/promises";
import {
  createEventStore,
  createMemorySealStore,
  type EventStore,
  type MemorySealStore,
} from "@cairn/event-store";
import type { PostgresGenerations, ProjectionHost } from "@cairn/projection-runtime";
import type { Logger } from "@cairn/telemetry";
import { Redis } from "ioredis";
import pg from "pg";
import { createEmbedders } from "./embedders/create-embedder.ts";
import type { Embedder } from "./embedders/embedder.ts";
import { embedderConfigFromEnv } from "./embedders/embedder-config.ts";
import type { SearchEnv } from "./env.ts";
import type { DocumentProjection } from "./projections/document-projection.ts";
import { createLexicalProjection } from "./projections/lexical/lexical-projection.ts";
import { createLexicalStore, type LexicalStore } from "./projections/lexical/lexical-store.ts";
import { detectRediSearch, type RediSearchModule } from "./projections/lexical/redisearch.ts";
import { createVectorGenerations } from "./projections/vector/vector-generations.ts";
import { createVectorProjection, type VectorProjection } from "./projections/vector/vector-projection.ts";
import { createVectorRows, type VectorRows } from "./projections/vector/vector-store.ts";
import { withQueryCache } from "./queries/read-models.ts";

export type OpenReadModels = {
  pool: pg.Pool;
  redis: Redis;
  module: RediSearchModule;
  eventLog: EventStore;
  sealRing: MemorySealStore;
  lexicalStore: LexicalStore;
  vectorGenerations: PostgresGenerations;
  vectorRows: VectorRows;
  embedder: Embedder;
  queryEmbedder: Embedder;
  lexical: DocumentProjection;
  vector: VectorProjection;
  close(): Promise<void>;
};

export type OpenReadModelsOptions = {
  /** How long to wait for Redis and Postgres at start (default 30 s). */
  startTimeoutMs?: number;
  /** The embedder to use instead of the configured one (tests). */
  embedder?: Embedder;
};

async function retryUntil<T>(
  what: string,
  timeoutMs: number,
  logger: Logger,
  fn: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      if (attempt === 1 || attempt % 10 === 0)
        logger.warn({ err: (error as Error).message }, `waiting for ${what}`);
      await sleep(500);
    }
  }
}

export async function openReadModels(
  env: SearchEnv,
  logger: Logger,
  options: OpenReadModelsOptions = {},
): Promise<OpenReadModels> {
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const role = env.CAIRN_SEARCH_DATABASE_ROLE;
  if (role && !/^[a-z_][a-z0-9_]*$/.test(role)) throw new Error(`invalid database role name: ${role}`);
  // Filtered KNN keeps scanning the HNSW graph until enough rows pass (pgvector 0.8's
  // iterative index scans); set per connection at startup, before any query runs. The read
  // models are served from memory, so a random page read costs about what a sequential one
  // does (`random_page_cost` 1.1, not the 4.0 of a spinning disk). With 4.0 the planner read
  // the 2,000 global memories of 100,000 by an exact scan and sort (2.0-2.2 ms) where their
  // partition's HNSW graph answers in 0.9-1.1 ms: Postgres's CPU per recall fell by 0.7-1.3 ms.
  const pool = new pg.Pool({
    connectionString: env.CAIRN_DATABASE_URL,
    max: 10,
    application_name: "cairn-search",
    options: [
      role ? `-c role=${role}` : "",
      "-c hnsw.iterative_scan=relaxed_order",
      "-c hnsw.ef_search=100",
      "-c random_page_cost=1.1",
    ]
      .filter(Boolean)
      .join(" "),
  });
  // An idle connection the server terminates, or one that errors while checked out, must never
  // be an uncaught error: the pool reconnects and the query that needed it fails on its own.
  pool.on("error", (error) => logger.warn({ err: error.message }, "postgres connection error"));
  pool.on("connect", (client) =>
    client.on("error", (error) => logger.warn({ err: error.message }, "postgres connection error")),
  );
  const redis = new Redis(env.CAIRN_REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: true });
  redis.on("error", () => {});
  try {
    await retryUntil("redis", startTimeoutMs, logger, () =>
      redis.connect().catch(async (e) => {
        if (redis.status === "ready") return;
        throw e;
      }),
    );
    const module = await retryUntil("redis", startTimeoutMs, logger, () => detectRediSearch(redis));
    await retryUntil("postgres", startTimeoutMs, logger, () => pool.query("select 1"));
    const embedders = options.embedder
      ? { documents: options.embedder, queries: options.embedder }
      : createEmbedders(embedderConfigFromEnv(env), pool);
    const embedder = embedders.documents;
    const lexicalStore = createLexicalStore({ redis, module, prefix: env.CAIRN_REDIS_PREFIX });
    const vectorGenerations = createVectorGenerations(pool, embedder);
    const vectorRows = createVectorRows({ pool });
    const eventLog = createEventStore(pool);
    const sealRing = createMemorySealStore(pool);
    return {
      pool,
      redis,
      module,
      eventLog,
      sealRing,
      lexicalStore,
      vectorGenerations,
      vectorRows,
      embedder,
      queryEmbedder: withQueryCache(embedders.queries),
      lexical: createLexicalProjection({ store: lexicalStore, redis, log: eventLog, sealRing }),
      vector: createVectorProjection({
        generations: vectorGenerations,
        rows: vectorRows,
        pool,
        embedder,
        log: eventLog,
        sealRing,
      }),
      async close() {
        redis.disconnect();
        await pool.end();
      },
    };
  } catch (error) {
    redis.disconnect();
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** The read models as the projection runtime's host (for a rebuild). */
export function projectionHostOf(opened: OpenReadModels): ProjectionHost {
  return {
    projections: [opened.lexical, opened.vector],
    log: opened.eventLog,
    pool: opened.pool,
    sealRing: opened.sealRing,
    close: () => opened.close(),
  };
}
