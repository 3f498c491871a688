// The maintenance service: a view of the log, the scheduler, the runner (one run per tenant
// at a time across copies), the doctor, and the requests that expose them. It never writes
// the log: every change is an ingest command, dry run first.
import { queueGroup } from "@cairn/contracts";
import {
  createDatabasePool,
  createEventStore,
  createMemorySealStore,
  migrateToLatest,
} from "@cairn/event-store";
import {
  type LiveProjector,
  type Projection,
  type ProjectionHost,
  projectionSettingsFromEnv,
  startProjectionRuntime,
} from "@cairn/projection-runtime";
import type { ServiceDefinition } from "@cairn/service-runtime";
import type { Logger } from "@cairn/telemetry";
import type pg from "pg";
import { createSearchRepairClient } from "./clients/search-repair-client.ts";
import type { DoctorDeps } from "./doctor/build-doctor-report.ts";
import { type MaintenanceEnv, maintenanceEnvSchema } from "./env.ts";
import { serveMaintenance } from "./queries/serve-maintenance.ts";
import type { RunnerDeps } from "./runner/run-job.ts";
import { createTenantLocks } from "./runner/runner-lock.ts";
import { type Scheduler, startScheduler } from "./runner/scheduler.ts";
import { deploymentSchedules } from "./settings/effective-settings.ts";
import { chatSummarizer } from "./summary/chat-summary.ts";
import { extractiveSummarizer } from "./summary/extractive-summary.ts";
import type { Summarizer } from "./summary/summarizer.ts";
import { loadTexts } from "./view/load-texts.ts";
import { createMaintenanceView, type MaintenanceView } from "./view/maintenance-view.ts";

export type MaintenanceServiceOptions = {
  /** The time jobs judge ages by (tests move it). */
  clock?: () => Date;
  summarizer?: Summarizer;
  /** Apply migrations at start (tests). */
  migrate?: boolean;
  /** Wraps each projection before the runtime runs it (tests inject failures this way). */
  decorateProjection?: (projection: Projection) => Projection;
};

export type MaintenanceService = ServiceDefinition<typeof maintenanceEnvSchema> & {
  /** The scheduler of the last start, when it runs (tests tick it). */
  scheduler(): Scheduler | undefined;
};

export function createMaintenanceService(options: MaintenanceServiceOptions = {}): MaintenanceService {
  let scheduler: Scheduler | undefined;
  return {
    name: "maintenance",
    envSchema: maintenanceEnvSchema,
    scheduler: () => scheduler,
    async start({ env: parsed, nc, logger, instance }) {
      const env = parsed as MaintenanceEnv;
      if (options.migrate) await migrateToLatest(env.CAIRN_DATABASE_URL);
      let projector: LiveProjector | undefined;
      const { pool, log, sealRing, view } = openView(env, logger, () => projector);
      const runtime = await startProjectionRuntime({
        service: "maintenance",
        nc,
        pool,
        log,
        sealRing,
        logger,
        projections: [view.projection],
        decorate: options.decorateProjection,
        consumerPrefix: env.CAIRN_MAINTENANCE_CONSUMER_PREFIX,
        settings: projectionSettingsFromEnv(env, "MAINTENANCE"),
        leases: { databaseUrl: env.CAIRN_DATABASE_URL, role: env.CAIRN_DB_ROLE || undefined, instance },
      }).catch(async (error: unknown) => {
        await pool.end();
        throw error;
      });
      projector = runtime.projectors.get("maintenance.view");
      const clock = options.clock ?? (() => new Date());
      const summarizer =
        options.summarizer ??
        (env.CAIRN_SUMMARY_URL
          ? chatSummarizer({
              baseUrl: env.CAIRN_SUMMARY_URL,
              model: env.CAIRN_SUMMARY_MODEL,
              apiKey: env.CAIRN_SUMMARY_API_KEY,
              timeoutMs: env.CAIRN_SUMMARY_TIMEOUT_MS,
              logger,
            })
          : extractiveSummarizer);
      const searchRepair = createSearchRepairClient(nc, env.CAIRN_MAINTENANCE_REQUEST_TIMEOUT_MS);
      const runner: RunnerDeps = {
        instance,
        nc,
        view,
        locks: createTenantLocks(pool),
        searchRepair,
        loadTexts: (ids) => loadTexts(log, sealRing, ids),
        summarizer,
        logger,
        clock,
        timeoutMs: env.CAIRN_MAINTENANCE_REQUEST_TIMEOUT_MS,
      };
      const doctor: DoctorDeps = {
        pool,
        nc,
        view,
        searchRepair,
        now: clock,
        timeoutMs: env.CAIRN_MAINTENANCE_REQUEST_TIMEOUT_MS,
      };
      const schedules = deploymentSchedules(env as unknown as Record<string, unknown>);
      const subscriptions = [
        ...serveMaintenance({ ...runner, doctor, schedules, schedulerOn: env.CAIRN_MAINTENANCE_SCHEDULER }),
        ...runtime.serveRpcs(queueGroup("maintenance")),
      ];
      scheduler = env.CAIRN_MAINTENANCE_SCHEDULER
        ? startScheduler(runner, { schedules, tickMs: env.CAIRN_MAINTENANCE_TICK_MS })
        : undefined;
      await nc.flush();
      logger.info(
        { scheduler: env.CAIRN_MAINTENANCE_SCHEDULER, summarizer: summarizer.name },
        "maintenance ready",
      );
      return {
        checks: { postgres: async () => void (await pool.query("select 1")) },
        async stop() {
          for (const s of subscriptions) await s.drain().catch(() => {});
          await scheduler?.stop();
          await runtime.stop();
          await pool.end();
        },
      };
    },
  };
}

function openView(
  env: MaintenanceEnv,
  logger: Logger,
  projector: () => LiveProjector | undefined = () => undefined,
): {
  pool: pg.Pool;
  log: ReturnType<typeof createEventStore>;
  sealRing: ReturnType<typeof createMemorySealStore>;
  view: MaintenanceView;
} {
  const pool = createDatabasePool(
    {
      connectionString: env.CAIRN_DATABASE_URL,
      role: env.CAIRN_DB_ROLE || undefined,
      max: 6,
      applicationName: "cairn-maintenance",
    },
    (error) => logger.warn({ err: error }, "idle database connection failed"),
  );
  const log = createEventStore(pool);
  const sealRing = createMemorySealStore(pool);
  return { pool, log, sealRing, view: createMaintenanceView({ pool, log, sealRing, projector }) };
}

/** The maintenance view as a projection, opened as the service opens it (for a rebuild). */
export function openMaintenanceProjections(
  env: MaintenanceEnv,
  logger: Logger,
): ProjectionHost & { view: MaintenanceView } {
  const { pool, log, sealRing, view } = openView(env, logger);
  return { projections: [view.projection], log, pool, sealRing, view, close: () => pool.end() };
}
