// Maintenance for admins, in their own tenant: run a job now (a dry run unless `apply`), the
// schedules and last runs, and the doctor's report. The maintenance service does the work;
// these routes only pass the admin's principal along. (`pnpm cairn maintenance` and
// `pnpm cairn doctor` do the same on the deployment, for any tenant.)
import { call } from "@cairn/bus";
import {
  DoctorReportSchema,
  MaintenanceJobSchema,
  MaintenanceStatusReplySchema,
  maintenanceRpcs,
  RunMaintenanceReplySchema,
} from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";
import { z } from "zod";
import { requireAdmin } from "../../auth/role-checks.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";

/** A run can take a while (a consolidation asks a model for each group). */
const runTimeoutMs = 15 * 60_000;

export function maintenanceRoutes(nc: NatsConnection): RouteSpec[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/maintenance/runs",
      operationId: "runMaintenance",
      summary: "Admins: run a maintenance job in their tenant now (a dry run unless apply)",
      description:
        "Without `apply` nothing changes and the answer says what would. A GC dry run answers a " +
        "`token` bound to the exact set it would purge; `apply` with that token purges that set or, " +
        "if the set changed, nothing (`token_invalid` in `error`). Answers 503 while another run of " +
        "the tenant holds the runner lock. Takes no `Idempotency-Key`: each change a run applies is keyed " +
        "by the run, and a run repeated after a lost answer finds only what the first left undone.",
      tag: "maintenance",
      idempotent: false,
      body: z
        .object({
          job: MaintenanceJobSchema,
          apply: z.boolean().default(false),
          token: z.string().min(1).optional(),
          params: z.record(z.string(), z.unknown()).optional(),
        })
        .strict(),
      success: { status: 200, description: "The run's record", schema: RunMaintenanceReplySchema },
      errors: [403, 503],
      handler: async ({ caller, body }) => {
        requireAdmin(caller.principal, "run maintenance");
        return call(
          nc,
          maintenanceRpcs.run,
          { principal: caller.principal, ...body },
          { timeoutMs: runTimeoutMs },
        );
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/maintenance",
      operationId: "getMaintenanceStatus",
      summary: "Admins: the maintenance schedule of their tenant and each job's last run",
      tag: "maintenance",
      success: { status: 200, description: "Schedules and last runs", schema: MaintenanceStatusReplySchema },
      errors: [403],
      handler: async ({ caller }) => {
        requireAdmin(caller.principal, "see the maintenance schedule");
        return call(nc, maintenanceRpcs.status, { tenant: caller.principal.tenant }, { timeoutMs: 60_000 });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/maintenance/doctor",
      operationId: "getDoctorReport",
      summary: "Admins: the doctor's report for their tenant (no memory content)",
      tag: "maintenance",
      query: z
        .object({
          full: z.enum(["true", "false"]).optional().describe("`true`: compare every document with the log"),
          summary: z.enum(["true", "false"]).optional().describe("`true`: status and findings only"),
        })
        .strict(),
      success: { status: 200, description: "The report", schema: DoctorReportSchema },
      errors: [403],
      handler: async ({ caller, query }) => {
        requireAdmin(caller.principal, "read the doctor's report");
        return call(
          nc,
          maintenanceRpcs.doctor,
          {
            tenant: caller.principal.tenant,
            full: query.full === "true",
            summaryOnly: query.summary === "true",
          },
          { timeoutMs: 5 * 60_000 },
        );
      },
    }),
  ];
}
