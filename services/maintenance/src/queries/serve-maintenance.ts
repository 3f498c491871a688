// The maintenance service's requests: run a job now (admins of the tenant), the doctor's
// report, and the scheduler's status. Every copy answers, in the maintenance queue group.
import {
  CairnError,
  type MaintenanceStatusReply,
  maintenanceJobs,
  maintenanceRpcs,
  queueGroup,
} from "@cairn/contracts";
import { serveReportingOutages } from "@cairn/service-runtime";
import type { Subscription } from "@nats-io/nats-core";
import { buildDoctorReport, type DoctorDeps } from "../doctor/build-doctor-report.ts";
import { type RunnerDeps, runJob, runningNow } from "../runner/run-job.ts";
import { nextRunAt } from "../runner/scheduler.ts";
import { type DeploymentSchedules, tenantSchedule } from "../settings/effective-settings.ts";

export type ServeDeps = RunnerDeps & {
  doctor: DoctorDeps;
  schedules: DeploymentSchedules;
  schedulerOn: boolean;
};

export function serveMaintenance(deps: ServeDeps): Subscription[] {
  const { nc, logger } = deps;
  const served = { queue: queueGroup("maintenance"), logger };
  const stores = "the log (Postgres) or a service maintenance asks";
  return [
    serveReportingOutages(
      nc,
      maintenanceRpcs.run,
      stores,
      async (request) => {
        if (request.principal.role !== "admin") {
          throw new CairnError("forbidden", "running maintenance needs an admin of the tenant", {
            hint: "ask an admin, or use `pnpm cairn maintenance <job>` on the deployment",
          });
        }
        if (request.token !== undefined && (request.job !== "gc" || !request.apply)) {
          throw new CairnError("validation_failed", "a token is only for applying a GC preview", {
            hint: "send the token with job gc and apply: true",
          });
        }
        const reply = await runJob(deps, {
          tenant: request.principal.tenant,
          job: request.job,
          mode: request.apply ? "apply" : "dry_run",
          trigger: "manual",
          requestedBy: request.principal.agent,
          params: request.params,
          token: request.token,
          runId: request.runId,
        });
        if (!reply) throw new CairnError("internal", "the run did not start");
        return reply;
      },
      served,
    ),
    serveReportingOutages(
      nc,
      maintenanceRpcs.doctor,
      stores,
      (request) => buildDoctorReport(deps.doctor, request),
      served,
    ),
    serveReportingOutages(
      nc,
      maintenanceRpcs.status,
      stores,
      async (request): Promise<MaintenanceStatusReply> => {
        await deps.view.catchUp();
        const tenants = request.tenant === undefined ? await deps.view.tenants() : [request.tenant];
        const states = await Promise.all(tenants.map((t) => deps.view.tenantState(t)));
        return {
          instance: deps.instance,
          scheduler: deps.schedulerOn,
          running: [...runningNow.values()],
          tenants: tenants.map((tenant, i) => ({
            tenant,
            jobs: maintenanceJobs.map((job) => {
              const state = states[i] as (typeof states)[number];
              const last = state.lastRuns[job];
              const next = nextRunAt(state, deps.schedules, job);
              return {
                job,
                ...tenantSchedule(job, deps.schedules, state.maintenance),
                lastRun: last
                  ? { runId: last.runId, mode: last.mode, outcome: last.outcome, finishedAt: last.finishedAt }
                  : null,
                nextRunAt:
                  next === null ? null : new Date(Math.max(next.getTime(), Date.now())).toISOString(),
              };
            }),
          })),
        };
      },
      served,
    ),
  ];
}
