// The search service: projections into RediSearch and pgvector (durable JetStream consumers
// plus a periodic catch-up from the log) and the query RPCs, answered by every copy in the
// `cairn-search` queue group.
import { ensureEventStream, serveRpc } from "@cairn/bus";
import {
  CandidatesRequestSchema,
  eventStreamName,
  eventSubjectPrefix,
  GetMemoryRequestSchema,
  InventoryRequestSchema,
  type ProjectionName,
  queueGroup,
  ReprojectRequestSchema,
  SearchStatusRequestSchema,
  searchRepairSubjects,
  searchSubjects,
} from "@cairn/contracts";
import type { ServiceContext, StartedService } from "@cairn/service-runtime";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { Subscription } from "@nats-io/nats-core";
import type { Embedder } from "./embedders/embedder.ts";
import type { SearchEnv } from "./env.ts";
import { openReadModels } from "./open-read-models.ts";
import { createLiveProjector, type LiveProjector } from "./projections/live-projector.ts";
import {
  exponentialBackoff,
  type ProjectionConsumer,
  startProjectionConsumer,
} from "./projections/projection-consumer.ts";
import type { ProjectionTarget } from "./projections/projection-target.ts";
import { documentInventory } from "./queries/document-inventory.ts";
import { getMemory } from "./queries/get-memory.ts";
import type { ReadModels } from "./queries/read-models.ts";
import { reprojectDocuments } from "./queries/reproject-documents.ts";
import { searchCandidates } from "./queries/search-candidates.ts";
import { searchStatus } from "./queries/search-status.ts";

export type SearchServiceOptions = {
  /** Replaces the configured embedder (tests). */
  embedder?: Embedder;
};

/** `start` of the search service definition (see main.ts); tests start it in-process. */
export function startSearch(options: SearchServiceOptions = {}) {
  return async (ctx: ServiceContext<SearchEnv>): Promise<StartedService> => {
    const { env, logger, nc } = ctx;
    const opened = await openReadModels(env, logger, options.embedder ? { embedder: options.embedder } : {});
    const targets: Record<ProjectionName, ProjectionTarget> = {
      lexical: opened.lexical,
      vector: opened.vector,
    };
    const models: ReadModels = {
      lexical: opened.lexicalStore,
      vector: opened.vector,
      vectorStore: opened.vectorStore,
      queryEmbedder: opened.queryEmbedder,
      defaultWaitMs: env.CAIRN_SEARCH_WAIT_TIMEOUT_MS,
      now: () => Date.now(),
      logger,
    };

    const projectors: LiveProjector[] = env.CAIRN_SEARCH_PROJECTIONS.map((name) =>
      createLiveProjector({
        target: targets[name],
        log: opened.eventLog,
        batchSize: env.CAIRN_SEARCH_BATCH_SIZE,
      }),
    );
    models.advances = Object.fromEntries(
      projectors.map((p) => [p.target.name, (listener: () => void) => p.onAdvance(listener)]),
    );
    const consumers: ProjectionConsumer[] = [];
    const timers: NodeJS.Timeout[] = [];
    const catchUps: Promise<unknown>[] = [];
    const subscriptions: Subscription[] = [];
    let stopped = false;

    try {
      if (projectors.length > 0) {
        const jsm = await jetstreamManager(nc);
        await ensureEventStream(jsm);
        const js = jetstream(nc);
        // What the log holds now is the start-up catch-up's; what is written from here on is
        // the consumers' (applied in their spans, linked to the publish), not raced by it.
        const startPosition = await opened.eventLog.lastPosition().catch(() => Number.POSITIVE_INFINITY);
        for (const projector of projectors) {
          consumers.push(
            await startProjectionConsumer({
              nc,
              js,
              jsm,
              stream: eventStreamName,
              durable: `${env.CAIRN_SEARCH_CONSUMER_PREFIX}-${projector.target.name}`,
              filterSubject: `${eventSubjectPrefix}.>`,
              projector,
              logger,
              maxDeliver: env.CAIRN_SEARCH_MAX_DELIVER,
              ackWaitMs: env.CAIRN_SEARCH_ACK_WAIT_MS,
              retryDelayMs: exponentialBackoff(env.CAIRN_SEARCH_RETRY_BASE_MS, env.CAIRN_SEARCH_RETRY_MAX_MS),
            }),
          );
          // Once at start: a read model that lost its data while the service was down (Redis
          // restarted empty) is rebuilt in place from the log without waiting for an event.
          const startup = projector.catchUp(undefined, { through: startPosition }).catch((error: Error) => {
            projector.reset();
            logger.warn(
              { err: error.message, projection: projector.target.name },
              "start-up catch-up failed",
            );
          });
          catchUps.push(startup);
          if (env.CAIRN_SEARCH_CATCH_UP_MS > 0) {
            // Events JetStream never delivered (a relay outage, a delivery given up on) are
            // read from the log; a no-op when the projection is current.
            let running = false;
            const timer = setInterval(() => {
              if (running || stopped) return;
              running = true;
              projector
                .catchUp()
                .catch((error: Error) => {
                  projector.reset();
                  logger.debug({ err: error.message, projection: projector.target.name }, "catch-up failed");
                })
                .finally(() => {
                  running = false;
                });
            }, env.CAIRN_SEARCH_CATCH_UP_MS);
            timer.unref();
            timers.push(timer);
          }
        }
      }

      const queue = queueGroup("search");
      subscriptions.push(
        serveRpc(nc, {
          subject: searchSubjects.candidates,
          queue,
          schema: CandidatesRequestSchema,
          handler: (request) => searchCandidates(models, request),
          logger,
        }),
        serveRpc(nc, {
          subject: searchSubjects.get,
          queue,
          schema: GetMemoryRequestSchema,
          handler: (request) => getMemory(models, request),
          logger,
        }),
        serveRpc(nc, {
          subject: searchSubjects.status,
          queue,
          schema: SearchStatusRequestSchema,
          handler: (request) => searchStatus(models, targets, request),
          logger,
        }),
        // For maintenance's doctor and repair: what the read models hold, and re-projection.
        serveRpc(nc, {
          subject: searchRepairSubjects.inventory,
          queue,
          schema: InventoryRequestSchema,
          handler: (request) =>
            documentInventory(
              {
                lexical: opened.lexicalStore,
                redis: opened.redis,
                vector: opened.vectorStore,
                pool: opened.pool,
              },
              request,
            ),
          logger,
        }),
        serveRpc(nc, {
          subject: searchRepairSubjects.reproject,
          queue,
          schema: ReprojectRequestSchema,
          handler: (request) =>
            reprojectDocuments(
              {
                log: opened.eventLog,
                lexical: { target: opened.lexical, store: opened.lexicalStore },
                vector: { target: opened.vector, store: opened.vectorStore },
              },
              request,
            ),
          logger,
        }),
      );
    } catch (error) {
      for (const c of consumers) await c.stop();
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

    return {
      checks: {
        postgres: async () => void (await opened.pool.query("select 1")),
        redis: async () => void (await opened.redis.ping()),
      },
      async stop() {
        stopped = true;
        for (const t of timers) clearInterval(t);
        for (const s of subscriptions) s.unsubscribe();
        await Promise.all(consumers.map((c) => c.stop()));
        await Promise.all(catchUps);
        await opened.close();
      },
    };
  };
}
