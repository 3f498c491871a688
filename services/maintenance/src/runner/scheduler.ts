// The schedule: every tick, each job of each tenant that is enabled and due (its last
// scheduled run finished at least `everyMinutes` ago) runs, one after another. Copies tick
// independently; the tenant lock lets one of them run, and the run record it leaves in the
// log tells the others the job is no longer due.
import { type MaintenanceJob, maintenanceAgent, maintenanceJobs } from "@cairn/contracts";
import { type DeploymentSchedules, tenantSchedule } from "../settings/effective-settings.ts";
import type { TenantState } from "../view/maintenance-view.ts";
import { RunnerBusyError, type RunnerDeps, runJob } from "./run-job.ts";

export type Scheduler = {
  /** One pass over every tenant and job (the timer calls it; tests may too). */
  tick(): Promise<void>;
  stop(): Promise<void>;
};

/** When the job is next due in the tenant (null: never, it is switched off). */
export function nextRunAt(
  state: TenantState,
  schedules: DeploymentSchedules,
  job: MaintenanceJob,
): Date | null {
  const schedule = tenantSchedule(job, schedules, state.maintenance);
  if (!schedule.enabled) return null;
  const last = state.lastRuns[`${job}:schedule`];
  if (!last) return new Date(0);
  return new Date(Date.parse(last.finishedAt) + schedule.everyMinutes * 60_000);
}

export function startScheduler(
  deps: RunnerDeps,
  options: { schedules: DeploymentSchedules; tickMs: number },
): Scheduler {
  let stopped = false;
  let current: Promise<void> | undefined;

  async function pass(): Promise<void> {
    await deps.view.catchUp();
    for (const tenant of await deps.view.tenants()) {
      for (const job of maintenanceJobs) {
        if (stopped) return;
        const isDue = async () => {
          const next = nextRunAt(await deps.view.tenantState(tenant), options.schedules, job);
          return next !== null && next.getTime() <= deps.clock().getTime();
        };
        if (!(await isDue())) continue;
        const schedule = tenantSchedule(
          job,
          options.schedules,
          (await deps.view.tenantState(tenant)).maintenance,
        );
        try {
          await runJob(deps, {
            tenant,
            job,
            mode: schedule.apply ? "apply" : "dry_run",
            trigger: "schedule",
            requestedBy: maintenanceAgent,
            stillDue: isDue,
          });
        } catch (error) {
          if (error instanceof RunnerBusyError) continue;
          deps.logger.warn({ err: error, tenant, job }, "scheduled maintenance run failed to start");
        }
      }
    }
  }

  const tick = () => {
    current ??= pass()
      .catch((error: unknown) => deps.logger.warn({ err: error }, "maintenance scheduler pass failed"))
      .finally(() => {
        current = undefined;
      });
    return current;
  };
  const timer = setInterval(() => {
    if (!stopped) void tick();
  }, options.tickMs);
  timer.unref();
  return {
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
