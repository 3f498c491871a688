// The ranking service: two read models (signals, key graph), projections of the log run by the
// projection runtime into Redis, and the queries that read them. `createRankingService` takes a
// clock so tests can move time; main.ts runs it with the real one.
import { type DecodedEvent, queueGroup, rankingRpcs } from "@cairn/contracts";
import { createDatabasePool, createEventStore, createMemorySealStore } from "@cairn/event-store";
import {
  type Projection,
  type ProjectionHost,
  prepareBatch,
  projectionSettingsFromEnv,
  startProjectionRuntime,
} from "@cairn/projection-runtime";
import { type ServiceDefinition, serveReportingOutages } from "@cairn/service-runtime";
import type { Logger } from "@cairn/telemetry";
import { Redis } from "ioredis";
import type pg from "pg";
import { type RankingEnv, rankingEnvSchema } from "./env.ts";
import { keysProjection } from "./projections/keys/keys-projection.ts";
import { signalsProjection } from "./projections/signals/signals-projection.ts";
import {
  type Clock,
  projectionsPosition,
  type RankingContext,
  withLayout,
  withTenantView,
} from "./queries/ranking-context.ts";
import { handleExpand } from "./queries/serve-expand.ts";
import { handleKeysRead, handleKeysRecall, handleKeysRelated } from "./queries/serve-keys.ts";
import { handleRerank } from "./queries/serve-rerank.ts";
import { handleSignals } from "./queries/serve-signals.ts";
import { rankingBases } from "./store/redis-layout.ts";

export type RankingServiceOptions = {
  clock?: Clock;
  /** Wraps each projection before the runtime runs it (tests inject failures this way). */
  decorateProjection?: (projection: Projection) => Projection;
};

type Opened = ProjectionHost & { redis: Redis; projections: Projection[] };

function connectRedis(env: RankingEnv): Redis {
  const redis = new Redis(env.CAIRN_REDIS_URL, { maxRetriesPerRequest: 2 });
  redis.on("error", () => {});
  return redis;
}

function connectPostgres(env: RankingEnv, logger: Logger): pg.Pool {
  return createDatabasePool(
    { connectionString: env.CAIRN_DATABASE_URL, max: 5, applicationName: "cairn-ranking" },
    (error) => logger.warn({ err: error.message }, "postgres connection error"),
  );
}

/** The ranking read models as projections, opened as the service opens them (for a rebuild too). */
export function openRankingProjections(env: RankingEnv, logger: Logger): Opened {
  const redis = connectRedis(env);
  const pool = connectPostgres(env, logger);
  const log = createEventStore(pool);
  const sealRing = createMemorySealStore(pool);
  const bases = rankingBases(env.CAIRN_RANKING_REDIS_PREFIX);
  const depth = { halfLifeDays: env.CAIRN_RANKING_DEPTH_HALF_LIFE_DAYS, gain: 0.25 };
  // Repair folds a memory again from its stream: decoded, with its text opened.
  const readStream = async (streamId: string): Promise<DecodedEvent[]> =>
    (await prepareBatch(signals, await log.readStream(streamId), sealRing)).events;
  const signals = signalsProjection({
    redis,
    base: bases.signals,
    depth,
    hotHalfLifeDays: env.CAIRN_RANKING_HOT_HALF_LIFE_DAYS,
    readStream,
    readTenantLog: async (tenant, position, types) =>
      (await prepareBatch(signals, await log.readTenantEvents(tenant, position, types), sealRing)).events,
  });
  const keys = keysProjection({
    redis,
    base: bases.keys,
    mergeSimilarity: env.CAIRN_RANKING_KEY_MERGE_SIMILARITY,
    readStream,
  });
  return {
    redis,
    pool,
    log,
    sealRing,
    projections: [signals, keys],
    async close() {
      redis.disconnect();
      await pool.end();
    },
  };
}

export function createRankingService(
  options: RankingServiceOptions = {},
): ServiceDefinition<typeof rankingEnvSchema> {
  return {
    name: "ranking",
    envSchema: rankingEnvSchema,
    async start({ env, nc, logger, instance }) {
      const config = env as RankingEnv;
      const opened = openRankingProjections(config, logger);
      const runtime = await startProjectionRuntime({
        service: "ranking",
        nc,
        pool: opened.pool,
        log: opened.log,
        sealRing: opened.sealRing,
        logger,
        projections: opened.projections,
        decorate: options.decorateProjection,
        consumerPrefix: config.CAIRN_RANKING_CONSUMER_PREFIX,
        settings: projectionSettingsOf(config),
        leases: { databaseUrl: config.CAIRN_DATABASE_URL, instance },
      }).catch(async (error: unknown) => {
        await opened.close();
        throw error;
      });
      const ctx: RankingContext = {
        redis: opened.redis,
        bases: rankingBases(config.CAIRN_RANKING_REDIS_PREFIX),
        clock: options.clock ?? (() => new Date()),
        env: config,
        depth: { halfLifeDays: config.CAIRN_RANKING_DEPTH_HALF_LIFE_DAYS, gain: 0.25 },
        runtime,
      };
      const served = { queue: queueGroup("ranking"), logger };
      const readModels = "the ranking read models (Redis) or the log (Postgres)";
      const subscriptions = [
        serveReportingOutages(
          nc,
          rankingRpcs.expand,
          readModels,
          async (r) => handleExpand(await withTenantView(ctx, r), r),
          served,
        ),
        serveReportingOutages(nc, rankingRpcs.rerank, readModels, (r) => handleRerank(ctx, r), served),
        serveReportingOutages(
          nc,
          rankingRpcs.signals,
          readModels,
          async (r) => handleSignals(await withLayout(ctx, r), r),
          served,
        ),
        serveReportingOutages(
          nc,
          rankingRpcs.keysRecall,
          readModels,
          async (r) => handleKeysRecall(await withLayout(ctx, r), r),
          served,
        ),
        serveReportingOutages(
          nc,
          rankingRpcs.keysRead,
          readModels,
          async (r) => handleKeysRead(await withLayout(ctx, r), r),
          served,
        ),
        serveReportingOutages(
          nc,
          rankingRpcs.keysRelated,
          readModels,
          async (r) => handleKeysRelated(await withLayout(ctx, r), r),
          served,
        ),
        ...runtime.serveRpcs(served.queue),
      ];
      // Answer from the moment start returns: the subscriptions have reached the server.
      await nc.flush();
      return {
        checks: {
          redis: async () => void (await opened.redis.ping()),
          postgres: async () => void (await opened.pool.query("select 1")),
          projections: async () => void (await projectionsPosition(ctx)),
        },
        stop: async () => {
          for (const s of subscriptions) s.unsubscribe();
          await runtime.stop();
          await opened.close();
        },
      };
    },
  };
}

function projectionSettingsOf(env: RankingEnv) {
  return projectionSettingsFromEnv(env, "RANKING");
}
