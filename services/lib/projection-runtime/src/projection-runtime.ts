// Runs a service's projections: for each, a live projector fed by its JetStream doorbell, a
// catch-up from the log at start (a read model that lost its data while the service was down is
// rebuilt in place), and a periodic one (events JetStream never delivered). It answers for the
// projections on the bus: status, dead letters, and their retry.
import { countDeadLetter } from "@cairn/bus";
import {
  type DeadLettersReply,
  type DeadLettersRequest,
  eventStreamName,
  eventSubjectPrefix,
  type ProjectionName,
  type ProjectionStatus,
  projectionRpcs,
  type RetryDeadLettersReply,
  type RetryDeadLettersRequest,
  type SealRing,
} from "@cairn/contracts";
import { serveReportingOutages } from "@cairn/service-runtime";
import type { Logger } from "@cairn/telemetry";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import type pg from "pg";
import { createBatchApplier } from "./batch-applier.ts";
import { createDeadLetterStore, type DeadLetterStore } from "./dead-letter-store.ts";
import type { EventLogReader } from "./event-log-reader.ts";
import { createLiveProjector, type LiveProjector } from "./live-projector.ts";
import type { Projection } from "./projection.ts";
import { type ProjectionConsumer, startProjectionConsumer } from "./projection-consumer.ts";
import { rebuildIfStale } from "./rebuild-if-stale.ts";
import { retryDeadLetters } from "./retry-dead-letters.ts";
import { defaultRetryPolicy, type RetryPolicy } from "./retry-policy.ts";
import { type PositionSource, waitForPosition } from "./wait-for-position.ts";

export type ProjectionRuntimeSettings = {
  /** Events per write when catching up (default 200). */
  batchSize?: number;
  ackWaitMs?: number;
  retry?: RetryPolicy;
  /** Period of the catch-up from the log (0: none besides the one at start). */
  catchUpMs?: number;
};

export type ProjectionRuntimeOptions = {
  /** The service running them: metric labels, the subjects it answers. */
  service: "search" | "ranking" | "maintenance";
  nc: NatsConnection;
  /** Where dead letters are kept (the log's database). */
  pool: pg.Pool;
  log: EventLogReader;
  sealRing?: SealRing | undefined;
  logger: Logger;
  projections: readonly Projection[];
  /** Wraps each projection before it runs (tests inject failures this way). */
  decorate?: ((projection: Projection) => Projection) | undefined;
  /** The projections that run live here (default: all); the others answer status and repair only. */
  live?: readonly ProjectionName[] | undefined;
  /** Durable consumer names are `<prefix>-<read model>`. */
  consumerPrefix: string;
  settings?: ProjectionRuntimeSettings;
};

export type ProjectionRuntime = {
  readonly projectors: ReadonlyMap<ProjectionName, LiveProjector>;
  readonly deadLetters: DeadLetterStore;
  positionSource(name: ProjectionName): PositionSource;
  /** Read-your-writes: answers the positions once the named projections reached `afterPosition`. */
  waitFor(
    names: readonly ProjectionName[],
    afterPosition: number | undefined,
    timeoutMs: number,
  ): Promise<Record<string, number>>;
  status(names?: readonly ProjectionName[]): Promise<ProjectionStatus[]>;
  listDeadLetters(request: DeadLettersRequest): Promise<DeadLettersReply>;
  retryDeadLetters(request: RetryDeadLettersRequest): Promise<RetryDeadLettersReply>;
  /** Answers the service's `projections.*` subjects. */
  serveRpcs(queue: string): Subscription[];
  stop(): Promise<void>;
};

export async function startProjectionRuntime(options: ProjectionRuntimeOptions): Promise<ProjectionRuntime> {
  const { nc, logger } = options;
  const projections = options.projections.map((p) => options.decorate?.(p) ?? p);
  const settings = options.settings ?? {};
  const retry = settings.retry ?? defaultRetryPolicy;
  const deadLetters = createDeadLetterStore(options.pool);
  const liveNames = new Set(options.live ?? projections.map((p) => p.name));
  const byName = new Map(projections.map((p) => [p.name, p]));
  const projectors = new Map<ProjectionName, LiveProjector>();
  const appliers = new Map<ProjectionName, ReturnType<typeof createBatchApplier>>();
  for (const projection of projections) {
    const labels = {
      service: options.service,
      projection: projection.name,
      consumer: `${options.consumerPrefix}-${projection.name.split(".")[1]}`,
    };
    const applier = createBatchApplier({
      projection,
      sealRing: options.sealRing,
      deadLetters,
      retry,
      logger,
      onDeadLetters: (count) => countDeadLetter(labels, count),
    });
    appliers.set(projection.name, applier);
    projectors.set(
      projection.name,
      createLiveProjector({
        projection,
        applier,
        log: options.log,
        deadLetters,
        ...(settings.batchSize === undefined ? {} : { batchSize: settings.batchSize }),
      }),
    );
  }

  const consumers: ProjectionConsumer[] = [];
  const timers: NodeJS.Timeout[] = [];
  const catchUps: Promise<unknown>[] = [];
  const refreshing = new AbortController();
  let stopped = false;
  const running = [...projectors.values()].filter((p) => liveNames.has(p.projection.name));
  if (running.length > 0) {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    // What the log holds now is the start-up catch-up's; what is written from here on is the
    // consumers' (applied in their spans, linked to the publish), not raced by it.
    const startPosition = await options.log.lastPosition().catch(() => Number.POSITIVE_INFINITY);
    for (const projector of running) {
      const name = projector.projection.name;
      consumers.push(
        await startProjectionConsumer({
          nc,
          js,
          jsm,
          stream: eventStreamName,
          durable: `${options.consumerPrefix}-${name.split(".")[1]}`,
          filterSubject: `${eventSubjectPrefix}.>`,
          projector,
          deadLetters,
          service: options.service,
          logger,
          ackWaitMs: settings.ackWaitMs ?? 30_000,
          retry,
        }),
      );
      catchUps.push(
        projector.catchUp(undefined, { through: startPosition }).catch((error: Error) => {
          projector.reset();
          logger.warn({ err: error.message, projection: name }, "start-up catch-up failed");
        }),
      );
      const period = settings.catchUpMs ?? 0;
      if (period > 0) {
        let busy = false;
        const timer = setInterval(() => {
          if (busy || stopped) return;
          busy = true;
          projector
            .catchUp()
            .catch((error: Error) => {
              projector.reset();
              logger.debug({ err: error.message, projection: name }, "catch-up failed");
            })
            .finally(() => {
              busy = false;
            });
        }, period);
        timer.unref();
        timers.push(timer);
      }
    }
  }

  // Read models built by another version of their projection are rebuilt while they serve.
  for (const projector of running) {
    const { projection } = projector;
    catchUps.push(
      rebuildIfStale({
        projection,
        applier: appliers.get(projection.name) as ReturnType<typeof createBatchApplier>,
        log: options.log,
        pool: options.pool,
        signal: refreshing.signal,
        logger,
        ...(settings.batchSize === undefined ? {} : { batchSize: settings.batchSize }),
      }).catch((error: Error) =>
        logger.warn({ err: error.message, projection: projection.name }, "version check failed"),
      ),
    );
  }

  function projectorOf(name: ProjectionName): LiveProjector {
    const projector = projectors.get(name);
    if (!projector) throw new Error(`${options.service} runs no projection ${name}`);
    return projector;
  }

  const runtime: ProjectionRuntime = {
    projectors,
    deadLetters,
    positionSource(name) {
      const projector = projectorOf(name);
      return {
        name: name.split(".")[1] ?? name,
        position: () => projector.position(),
        onAdvance: (listener) => projector.onAdvance(() => listener()),
        logPosition: () => options.log.lastCommittedPosition(),
        // Only a projection this process applies moves its last known position.
        ...(liveNames.has(name) ? { lastKnown: () => projector.lastKnownPosition() } : {}),
      };
    },
    waitFor(names, afterPosition, timeoutMs) {
      return waitForPosition(
        names.map((n) => runtime.positionSource(n)),
        afterPosition,
        timeoutMs,
      );
    },
    async status(names) {
      const wanted = (names ?? [...projectors.keys()]).filter((n) => projectors.has(n));
      const [logPosition, open] = await Promise.all([
        options.log.lastCommittedPosition(),
        deadLetters.openCounts(),
      ]);
      return Promise.all(
        wanted.map(async (name) => {
          const projection = byName.get(name) as Projection;
          const { generations } = projection;
          const active = await generations.active();
          const position = active === null ? 0 : await generations.checkpoint(active);
          const building = (await generations.resumable()).at(-1);
          return {
            name,
            generation: active ?? 0,
            position,
            logPosition,
            lag: Math.max(0, logPosition - position),
            deadLetters: open.get(name)?.count ?? 0,
            lastDeadLetterAt: open.get(name)?.lastAt ?? null,
            rebuilding: building ? { generation: building.generation, position: building.checkpoint } : null,
            details: (await projection.describe?.()) ?? {},
          };
        }),
      );
    },
    async listDeadLetters(request) {
      const names = request.projections ?? [...projectors.keys()];
      const rows = (
        await Promise.all(
          names
            .filter((n) => projectors.has(n))
            .map((projection) =>
              deadLetters.list({
                projection,
                ...(request.status ? { status: request.status } : {}),
                limit: request.limit ?? 100,
              }),
            ),
        )
      ).flat();
      return { deadLetters: rows };
    },
    retryDeadLetters(request) {
      const names = new Set(request.projections ?? [...projectors.keys()]);
      return retryDeadLetters({
        projections: projections.filter((p) => names.has(p.name)),
        deadLetters,
        log: options.log,
        sealRing: options.sealRing,
        ids: request.ids,
      });
    },
    serveRpcs(queue) {
      const rpcs = projectionRpcs(options.service);
      const stores = "the projections' checkpoints and dead letters (Postgres, Redis)";
      const served = { queue, logger };
      return [
        serveReportingOutages(
          nc,
          rpcs.status,
          stores,
          async (request) => ({ projections: await runtime.status(request.projections) }),
          served,
        ),
        serveReportingOutages(
          nc,
          rpcs.deadLetters,
          stores,
          (request) => runtime.listDeadLetters(request),
          served,
        ),
        serveReportingOutages(
          nc,
          rpcs.retryDeadLetters,
          stores,
          (request) => runtime.retryDeadLetters(request),
          served,
        ),
      ];
    },
    async stop() {
      stopped = true;
      refreshing.abort();
      for (const t of timers) clearInterval(t);
      await Promise.all(consumers.map((c) => c.stop()));
      await Promise.all(catchUps);
    },
  };
  return runtime;
}
