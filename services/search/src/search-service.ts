// The search service: the lexical and vector read models (projections of the log run by the
// projection runtime: JetStream doorbell, catch-up from the log, dead letters) and the query
// RPCs, answered by every copy in the `cairn-search` queue group.
import { call } from "@cairn/bus";
import { type ProjectionName, queueGroup, rankingRpcs, searchRpcs } from "@cairn/contracts";
import { type Projection, type ProjectionHost, startProjectionRuntime } from "@cairn/projection-runtime";
import {
  type ServiceContext,
  type ServiceDefinition,
  type StartedService,
  serveReportingOutages,
} from "@cairn/service-runtime";
import type { Logger } from "@cairn/telemetry";
import type { Subscription } from "@nats-io/nats-core";
import type { Embedder } from "./embedders/embedder.ts";
import { projectionSettingsOf, type SearchEnv, searchEnvSchema } from "./env.ts";
import { openReadModels, projectionHostOf } from "./open-read-models.ts";
import { asOfCandidates, isAsOfRequest } from "./queries/as-of.ts";
import { countMemories } from "./queries/count-memories.ts";
import { documentInventory } from "./queries/document-inventory.ts";
import { exportPage } from "./queries/export-memories.ts";
import { finalResults, type Rerank } from "./queries/final-results.ts";
import { getMemory } from "./queries/get-memory.ts";
import { memoryHistory } from "./queries/memory-history.ts";
import { readDocuments } from "./queries/read-documents.ts";
import type { ReadModels } from "./queries/read-models.ts";
import { reprojectDocuments } from "./queries/reproject-documents.ts";
import { candidateIds, searchCandidates } from "./queries/search-candidates.ts";
import { searchStatus } from "./queries/search-status.ts";

export type SearchServiceOptions = {
  /** Replaces the configured embedder (tests). */
  embedder?: Embedder;
  /** Wraps each projection before the runtime runs it (tests inject failures this way). */
  decorateProjection?: (projection: Projection) => Projection;
};

/** `start` of the search service definition (see main.ts); tests start it in-process. */
export function startSearch(options: SearchServiceOptions = {}) {
  return async (ctx: ServiceContext<SearchEnv>): Promise<StartedService> => {
    const { env, logger, nc, instance } = ctx;
    const { decorateProjection } = options;
    const opened = await openReadModels(env, logger, options.embedder ? { embedder: options.embedder } : {});
    const subscriptions: Subscription[] = [];
    let runtime: Awaited<ReturnType<typeof startProjectionRuntime>> | undefined;
    try {
      runtime = await startProjectionRuntime({
        service: "search",
        nc,
        pool: opened.pool,
        log: opened.eventLog,
        sealRing: opened.sealRing,
        logger,
        projections: [opened.lexical, opened.vector],
        decorate: decorateProjection,
        live: env.CAIRN_SEARCH_PROJECTIONS.map((n) => `search.${n}` as ProjectionName),
        consumerPrefix: env.CAIRN_SEARCH_CONSUMER_PREFIX,
        settings: projectionSettingsOf(env),
        leases: {
          databaseUrl: env.CAIRN_DATABASE_URL,
          role: env.CAIRN_SEARCH_DATABASE_ROLE || undefined,
          instance,
        },
      });
      const models: ReadModels = {
        lexical: opened.lexicalStore,
        vector: opened.vector,
        vectorRows: opened.vectorRows,
        queryEmbedder: opened.queryEmbedder,
        defaultWaitMs: env.CAIRN_SEARCH_WAIT_TIMEOUT_MS,
        lexicalPool: env.CAIRN_SEARCH_LEXICAL_POOL,
        commonTermShare: env.CAIRN_SEARCH_COMMON_TERM_SHARE,
        now: () => Date.now(),
        logger,
        runtime,
      };
      const asOf = { log: opened.eventLog, sealRing: opened.sealRing };
      const options = { queue: queueGroup("search"), logger };
      const rerank: Rerank = (request) =>
        call(nc, rankingRpcs.rerank, request, { timeoutMs: env.CAIRN_SEARCH_RERANK_TIMEOUT_MS });
      const readModels = "the search read models (Redis, Postgres) or the log";
      subscriptions.push(
        serveReportingOutages(
          nc,
          searchRpcs.candidates,
          readModels,
          (request) =>
            isAsOfRequest(request)
              ? asOfCandidates(models, asOf, request)
              : searchCandidates(models, request),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.candidateIds,
          readModels,
          (request) => candidateIds(models, request),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.results,
          readModels,
          (request) => finalResults(models, asOf, rerank, request),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.documents,
          readModels,
          (request) => readDocuments(models, request),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.count,
          readModels,
          (request) => countMemories(models, request),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.get,
          readModels,
          (request) => getMemory(models, asOf, request),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.history,
          readModels,
          (request) => memoryHistory(models, asOf, request),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.export,
          readModels,
          (request) => exportPage(asOf, request),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.status,
          readModels,
          (request) => searchStatus(models, request),
          options,
        ),
        // For maintenance's doctor and repair: what the read models hold, and re-projection.
        serveReportingOutages(
          nc,
          searchRpcs.inventory,
          readModels,
          (request) =>
            documentInventory(
              { lexical: opened.lexicalStore, redis: opened.redis, vector: opened.vector, pool: opened.pool },
              request,
            ),
          options,
        ),
        serveReportingOutages(
          nc,
          searchRpcs.reproject,
          readModels,
          (request) => reprojectDocuments({ lexical: opened.lexical, vector: opened.vector }, request),
          options,
        ),
        ...runtime.serveRpcs(options.queue),
      );
    } catch (error) {
      for (const s of subscriptions) s.unsubscribe();
      await runtime?.stop();
      await opened.close();
      throw error;
    }

    logger.info(
      {
        redisearch: opened.module.version,
        embedder: opened.embedder.model,
        projections: env.CAIRN_SEARCH_PROJECTIONS,
      },
      "search ready",
    );
    const running = runtime;
    return {
      checks: {
        postgres: async () => void (await opened.pool.query("select 1")),
        redis: async () => void (await opened.redis.ping()),
      },
      async stop() {
        for (const s of subscriptions) s.unsubscribe();
        await running.stop();
        await opened.close();
      },
    };
  };
}

export function createSearchService(
  options: SearchServiceOptions = {},
): ServiceDefinition<typeof searchEnvSchema> {
  return { name: "search", envSchema: searchEnvSchema, start: startSearch(options) };
}

/** The search read models as projections, opened as the service opens them (for a rebuild). */
export async function openSearchProjections(
  env: SearchEnv,
  logger: Logger,
  options: SearchServiceOptions = {},
): Promise<ProjectionHost> {
  return projectionHostOf(
    await openReadModels(env, logger, options.embedder ? { embedder: options.embedder } : {}),
  );
}
