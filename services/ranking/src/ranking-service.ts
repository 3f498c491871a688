// The ranking service: two projections (signals, key graph) from the event stream into
// Redis, and the queries that read them. `createRankingService` takes a clock so tests can
// move time; main.ts runs it with the real one.
import { serveRpc } from "@cairn/bus";
import {
  ExpandRequestSchema,
  KeysReadRequestSchema,
  KeysRecallRequestSchema,
  KeysRelatedRequestSchema,
  queueGroup,
  RerankRequestSchema,
  rankingSubjects,
  SignalsRequestSchema,
} from "@cairn/contracts";
import type { ServiceDefinition } from "@cairn/service-runtime";
import { Redis } from "ioredis";
import type { z } from "zod";
import { type RankingEnv, rankingEnvSchema } from "./env.ts";
import { keysProjection } from "./projections/keys/keys-projection.ts";
import { cachedRemoteKeyring, withOpenedContent } from "./projections/open-sealed-content.ts";
import { type RunningProjection, runProjection } from "./projections/run-projection.ts";
import { signalsProjection } from "./projections/signals/signals-projection.ts";
import { type Clock, projectionsPosition, type RankingContext } from "./queries/ranking-context.ts";
import { handleExpand } from "./queries/serve-expand.ts";
import { handleKeysRead, handleKeysRecall, handleKeysRelated } from "./queries/serve-keys.ts";
import { handleRerank } from "./queries/serve-rerank.ts";
import { handleSignals } from "./queries/serve-signals.ts";
import { redisLayout } from "./store/redis-layout.ts";

export type RankingServiceOptions = { clock?: Clock };

export function createRankingService(
  options: RankingServiceOptions = {},
): ServiceDefinition<typeof rankingEnvSchema> {
  return {
    name: "ranking",
    envSchema: rankingEnvSchema,
    async start({ env, nc, logger }) {
      const config = env as RankingEnv;
      const connect = () => {
        const redis = new Redis(config.CAIRN_REDIS_URL, { maxRetriesPerRequest: 2 });
        redis.on("error", () => {});
        return redis;
      };
      const redis = connect();
      const layout = redisLayout(config.CAIRN_RANKING_REDIS_PREFIX);
      const depth = { halfLifeDays: config.CAIRN_RANKING_DEPTH_HALF_LIFE_DAYS, gain: 0.25 };
      // Each projection has its own connection: it WATCHes its checkpoint.
      const projectionConnections: Redis[] = [];
      const keyring = cachedRemoteKeyring(nc);
      const projections: RunningProjection[] = [
        signalsProjection({ layout, depth, hotHalfLifeDays: config.CAIRN_RANKING_HOT_HALF_LIFE_DAYS }),
        keysProjection({ layout, mergeSimilarity: config.CAIRN_RANKING_KEY_MERGE_SIMILARITY }),
      ].map((projection) => {
        const connection = connect();
        projectionConnections.push(connection);
        return runProjection({
          nc,
          redis: connection,
          checkpointKey: layout.checkpoint(projection.name),
          consumerName: `${config.CAIRN_RANKING_CONSUMER_PREFIX}-${projection.name}`,
          projection: withOpenedContent(projection, keyring),
          logger,
        });
      });
      const ctx: RankingContext = {
        redis,
        layout,
        clock: options.clock ?? (() => new Date()),
        env: config,
        depth,
        projections,
      };
      const queue = queueGroup("ranking");
      const serve = <S extends z.ZodType, R>(
        subject: string,
        schema: S,
        handler: (ctx: RankingContext, request: z.infer<S>) => Promise<R>,
      ) => serveRpc(nc, { subject, queue, schema, logger, handler: (request) => handler(ctx, request) });
      const subscriptions = [
        serve(rankingSubjects.expand, ExpandRequestSchema, handleExpand),
        serve(rankingSubjects.rerank, RerankRequestSchema, handleRerank),
        serve(rankingSubjects.signals, SignalsRequestSchema, handleSignals),
        serve(rankingSubjects.keysRecall, KeysRecallRequestSchema, handleKeysRecall),
        serve(rankingSubjects.keysRead, KeysReadRequestSchema, handleKeysRead),
        serve(rankingSubjects.keysRelated, KeysRelatedRequestSchema, handleKeysRelated),
      ];
      // Answer from the moment start returns: the subscriptions have reached the server.
      await nc.flush();
      return {
        checks: {
          redis: async () => void (await redis.ping()),
          projections: async () => void (await projectionsPosition(ctx)),
        },
        stop: async () => {
          for (const s of subscriptions) s.unsubscribe();
          await Promise.all(projections.map((p) => p.stop()));
          for (const r of [redis, ...projectionConnections]) r.disconnect();
        },
      };
    },
  };
}
