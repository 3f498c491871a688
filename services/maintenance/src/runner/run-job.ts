// Runs one job for one tenant: takes the tenant's runner lock (or answers that another run
// holds it), brings the view up to the log, runs the job with the effective parameters,
// records the run in the log through ingest (`maintenance.record_run`), counts it, and
// reports progress on the run's subject while it works.
import { randomUUID } from "node:crypto";
import {
  CairnError,
  isCairnError,
  type MaintenanceJob,
  type MaintenanceProgress,
  type MaintenanceRunRecord,
  maintenanceAgent,
  maintenanceProgressSubject,
  maxRecordedActions,
  type Principal,
  type RunMaintenanceReply,
} from "@cairn/contracts";
import { createSecondsHistogram, getMeter, getTracer, type Logger, startSpan } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import { createIngestClient } from "../clients/ingest-client.ts";
import { createReadClients } from "../clients/read-clients.ts";
import type { SearchRepairClient } from "../clients/search-repair-client.ts";
import { consolidation } from "../jobs/consolidation.ts";
import { dedup } from "../jobs/dedup.ts";
import { forgetting } from "../jobs/forgetting.ts";
import { gc } from "../jobs/gc.ts";
import type { Job, JobContext, JobResult } from "../jobs/job-context.ts";
import { repair } from "../jobs/repair.ts";
import { synonyms } from "../jobs/synonyms.ts";
import { verification } from "../jobs/verification.ts";
import { jobParams } from "../settings/effective-settings.ts";
import type { Summarizer } from "../summary/summarizer.ts";
import type { MemoryText } from "../view/load-texts.ts";
import type { MaintenanceView } from "../view/maintenance-view.ts";
import type { TenantLocks } from "./runner-lock.ts";

export const jobs: { [J in MaintenanceJob]: Job<J> } = {
  consolidation,
  forgetting,
  dedup,
  synonyms,
  verification,
  gc,
  repair,
};

export type RunnerDeps = {
  /** This copy of the service (named in a refusal, so an operator sees which copy answered). */
  instance: string;
  nc: NatsConnection;
  view: MaintenanceView;
  locks: TenantLocks;
  searchRepair: SearchRepairClient;
  loadTexts(ids: readonly string[]): Promise<Map<string, MemoryText>>;
  summarizer: Summarizer;
  logger: Logger;
  clock: () => Date;
  timeoutMs: number;
};

export type RunRequest = {
  tenant: string;
  job: MaintenanceJob;
  mode: "dry_run" | "apply";
  trigger: "schedule" | "manual";
  requestedBy: string;
  params?: Record<string, unknown> | undefined;
  token?: string | undefined;
  runId?: string | undefined;
  /** For scheduled runs: checked again once the lock is held (another copy may have just run it). */
  stillDue?: () => Promise<boolean>;
};

/** A run that could not start because another run of the tenant holds the lock. */
export class RunnerBusyError extends CairnError {
  constructor(tenant: string, instance: string) {
    super("unavailable", `maintenance of tenant ${tenant} is running already (in this or another copy)`, {
      hint: "wait for that run to finish (see `pnpm cairn maintenance status`), then ask again",
      details: { tenant, reason: "locked", instance },
    });
    this.name = "RunnerBusyError";
  }
}

const tracer = getTracer("@cairn/maintenance");

/**
 * The run metrics, from the process's current meter (asked for at each use: the meter is a
 * no-op until the service has set metrics up, and the SDK hands out the same instrument
 * for the same name). The dashboard reads `cairn_maintenance_job_runs_total{job, outcome}`.
 */
function metrics() {
  const meter = getMeter();
  return {
    runs: meter.createCounter("cairn_maintenance_job_runs", {
      description: "Maintenance runs by job and outcome (ok, partial, failed, skipped)",
    }),
    actions: meter.createCounter("cairn_maintenance_actions", {
      description: "Decisions of maintenance runs by job, action and status",
    }),
    duration: createSecondsHistogram(
      meter,
      "cairn_maintenance_job_duration_seconds",
      "Maintenance run duration",
    ),
  };
}

export function maintenancePrincipal(tenant: string): Principal {
  return { tenant, agent: maintenanceAgent, role: "admin", primary: true };
}

/** The running runs of this copy, for `status`. */
export const runningNow = new Map<string, { tenant: string; job: MaintenanceJob; runId: string }>();

export async function runJob(
  deps: RunnerDeps,
  request: RunRequest,
): Promise<RunMaintenanceReply | undefined> {
  const runId = request.runId ?? randomUUID();
  const { tenant, job } = request;
  await deps.view.catchUp();
  // Invalid parameters are refused before anything else happens.
  const params = jobParams(job, (await deps.view.tenantState(tenant)).maintenance, request.params);
  const lock = await deps.locks.tryAcquire(tenant);
  if (!lock) {
    metrics().runs.add(1, { job, outcome: "skipped" });
    throw new RunnerBusyError(tenant, deps.instance);
  }
  try {
    // What other copies did while this one waited is in the log: read it before deciding.
    await deps.view.catchUp();
    if (request.stillDue && !(await request.stillDue())) {
      metrics().runs.add(1, { job, outcome: "skipped" });
      return undefined;
    }
    runningNow.set(runId, { tenant, job, runId });
    return await startSpan(
      tracer,
      `maintenance ${job}`,
      (span) => {
        span.setAttribute("cairn.tenant", tenant);
        span.setAttribute("cairn.maintenance.run_id", runId);
        return execute(deps, request, runId, params);
      },
      { attributes: { "cairn.maintenance.mode": request.mode } },
    );
  } finally {
    runningNow.delete(runId);
    await lock.release();
  }
}

async function execute(
  deps: RunnerDeps,
  request: RunRequest,
  runId: string,
  params: Record<string, unknown>,
): Promise<RunMaintenanceReply> {
  const { tenant, job } = request;
  const startedAt = deps.clock();
  const started = performance.now();
  const principal = maintenancePrincipal(tenant);
  const logger = deps.logger.child({ runId, job, tenant, mode: request.mode });
  logger.info({ trigger: request.trigger, requestedBy: request.requestedBy }, "maintenance run started");
  const progress = (stage: string, done: number, total: number | null) => {
    const message: MaintenanceProgress = { runId, job, tenant, stage, done, total };
    deps.nc.publish(maintenanceProgressSubject(runId), JSON.stringify(message));
    logger.debug({ stage, done, total }, "maintenance progress");
  };
  const ingest = createIngestClient(deps.nc, { principal, runId, timeoutMs: deps.timeoutMs });
  const view = await deps.view.snapshot(tenant);
  const ctx: JobContext = {
    job,
    tenant,
    runId,
    mode: request.mode,
    params: params as never,
    now: startedAt,
    token: request.token,
    view,
    fullView: deps.view,
    ingest,
    read: createReadClients(deps.nc, { principal, timeoutMs: deps.timeoutMs }),
    searchRepair: deps.searchRepair,
    nc: deps.nc,
    timeoutMs: deps.timeoutMs,
    loadTexts: deps.loadTexts,
    summarizer: deps.summarizer,
    progress,
    logger,
  };
  let result: JobResult = { examined: 0, actions: [], positions: [] };
  let error: { code: string; message: string } | null = null;
  progress("started", 0, null);
  try {
    result = await (jobs[job] as Job<MaintenanceJob>)(ctx);
  } catch (cause) {
    error = {
      code: isCairnError(cause) ? cause.code : "internal",
      message: (cause as Error).message,
    };
    logger.warn({ err: cause }, "maintenance run failed");
  }
  const outcome = error ? "failed" : result.actions.some((a) => a.status === "failed") ? "partial" : "ok";
  const positions = result.positions.filter((p) => p > 0);
  const record: MaintenanceRunRecord = {
    runId,
    job,
    mode: request.mode,
    trigger: request.trigger,
    requestedBy: request.requestedBy,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date(Math.max(deps.clock().getTime(), startedAt.getTime())).toISOString(),
    outcome,
    examined: result.examined,
    actions: result.actions.slice(0, maxRecordedActions),
    truncatedActions: Math.max(0, result.actions.length - maxRecordedActions),
    params,
    error,
    position: positions.length > 0 ? Math.max(...positions) : null,
  };
  let recorded = false;
  let recordPosition: number | null = null;
  try {
    const written = await ingest.send("maintenance.record_run", { run: record }, runId);
    recorded = true;
    recordPosition = written.position;
    // Read it back into the view, so the next scheduling decision of this copy sees it.
    await deps.view.catchUp();
  } catch (cause) {
    logger.error({ err: cause }, "the run could not be recorded in the log");
  }
  const m = metrics();
  m.runs.add(1, { job, outcome });
  m.duration.record((performance.now() - started) / 1000, { job });
  for (const a of result.actions) m.actions.add(1, { job, action: a.action, status: a.status });
  progress("finished", result.actions.length, result.actions.length);
  logger.info(
    { outcome, examined: record.examined, actions: result.actions.length, recorded, recordPosition },
    "maintenance run finished",
  );
  return {
    ...record,
    tenant,
    recorded,
    token: result.token?.token ?? null,
    tokenExpiresAt: result.token?.expiresAt ?? null,
  };
}
