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
import { startProjectionConsumer } from "./projection-consumer.ts";
import { startProjectionLeases } from "./projection-leases.ts";
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
  /** How often a copy looks at the projections' leases (with `leases`). */
  leaseCheckMs?: number;
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
  /**
   * Share the projections with the other copies of the service (see projection-leases.ts): this
   * copy applies only those whose lease it holds. Without it, this copy applies them all.
   */
  leases?: { databaseUrl: string; role?: string | undefined; instance: string };
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

  const catchUps: Promise<unknown>[] = [];
  const refreshing = new AbortController();
  let stopped = false;
  const running = [...projectors.values()].filter((p) => liveNames.has(p.projection.name));
  const jsm = running.length > 0 ? await jetstreamManager(nc) : undefined;
  const js = running.length > 0 ? jetstream(nc) : undefined;

  /** Applies a projection here: its consumer, a catch-up from the log, and the periodic one. */
  async function applyHere(projector: LiveProjector): Promise<() => Promise<void>> {
    const name = projector.projection.name;
    // What the log holds now is this catch-up's; what is written from here on is the
    // consumer's (applied in its spans, linked to the publish), not raced by it.
    const startPosition = await options.log.lastPosition().catch(() => Number.POSITIVE_INFINITY);
    const consumer = await startProjectionConsumer({
      nc,
      js: js as NonNullable<typeof js>,
      jsm: jsm as NonNullable<typeof jsm>,
      stream: eventStreamName,
      durable: `${options.consumerPrefix}-${name.split(".")[1]}`,
      filterSubject: `${eventSubjectPrefix}.>`,
      projector,
      deadLetters,
      service: options.service,
      logger,
      ackWaitMs: settings.ackWaitMs ?? 30_000,
      retry,
    });
    const catchUp = projector.catchUp(undefined, { through: startPosition }).catch((error: Error) => {
      projector.reset();
      logger.warn({ err: error.message, projection: name }, "start-up catch-up failed");
    });
    catchUps.push(catchUp);
    let timer: NodeJS.Timeout | undefined;
    let busy: Promise<unknown> | undefined;
    const period = settings.catchUpMs ?? 0;
    if (period > 0) {
      timer = setInterval(() => {
        if (busy || stopped) return;
        busy = projector
          .catchUp()
          .catch((error: Error) => {
            projector.reset();
            logger.debug({ err: error.message, projection: name }, "catch-up failed");
          })
          .finally(() => {
            busy = undefined;
          });
      }, period);
      timer.unref();
    }
    return async () => {
      if (timer) clearInterval(timer);
      await consumer.stop();
      await Promise.all([catchUp, busy]);
    };
  }

  const applying = new Map<ProjectionName, Promise<() => Promise<void>>>();
  const startApplying = async (name: ProjectionName) => {
    const projector = projectors.get(name);
    if (!projector || applying.has(name)) return;
    const started = applyHere(projector);
    applying.set(name, started);
    await started;
  };
  const stopApplying = async (name: ProjectionName) => {
    const started = applying.get(name);
    applying.delete(name);
    await (await started?.catch(() => undefined))?.();
  };
  const leases =
    options.leases && running.length > 0
      ? await startProjectionLeases({
          connectionString: options.leases.databaseUrl,
          role: options.leases.role,
          service: options.service,
          instance: options.leases.instance,
          names: running.map((p) => p.projection.name),
          acquired: startApplying,
          released: stopApplying,
          logger,
          ...(settings.leaseCheckMs === undefined ? {} : { checkMs: settings.leaseCheckMs }),
        })
      : undefined;
  if (!leases) for (const projector of running) await startApplying(projector.projection.name);

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
      const [logPosition, open, holders] = await Promise.all([
        options.log.lastCommittedPosition(),
        deadLetters.openCounts(),
        leases?.holders().catch(() => undefined),
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
            appliedBy: holders ? (holders[name] ?? null) : options.leases?.instance,
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
      await leases?.stop();
      await Promise.all([...applying.keys()].map(stopApplying));
      await Promise.all(catchUps);
    },
  };
  return runtime;
}
