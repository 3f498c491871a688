// The maintenance service on NATS: its subjects, a run's request, reply and progress, and
// the scheduler's status.
import { z } from "zod";
import { IdSchema, TimestampSchema } from "../memory.ts";
import { PrincipalSchema, TenantIdSchema } from "../principal.ts";
import { JobScheduleSchema, MaintenanceJobSchema } from "./jobs.ts";
import { MaintenanceRunRecordSchema } from "./run-record.ts";

export const maintenanceSubjects = {
  /** Runs one job for the principal's tenant (`RunMaintenanceRequest` → `RunMaintenanceReply`). */
  run: "cairn.maintenance.run",
  /** The health report (`DoctorRequest` → `DoctorReport`). */
  doctor: "cairn.maintenance.doctor",
  /** Schedules, last runs, and who holds the runner lock (`MaintenanceStatusRequest` → `MaintenanceStatusReply`). */
  status: "cairn.maintenance.status",
} as const;

/** Progress of a run is published (core NATS, fire and forget) on this subject. */
export function maintenanceProgressSubject(runId: string): string {
  return `cairn.maintenance.progress.${runId}`;
}

export const MaintenanceProgressSchema = z.object({
  runId: IdSchema,
  job: MaintenanceJobSchema,
  tenant: z.string(),
  stage: z.string(),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative().nullable(),
});
export type MaintenanceProgress = z.infer<typeof MaintenanceProgressSchema>;

/**
 * `cairn.maintenance.run`: an admin of the tenant runs a job now. Without `apply` it is a dry
 * run: nothing changes, the reply says what would. A GC dry run answers a `token` bound to
 * the exact set it would purge; `apply` with that token purges that set or nothing.
 */
export const RunMaintenanceRequestSchema = z
  .object({
    principal: PrincipalSchema,
    job: MaintenanceJobSchema,
    apply: z.boolean().default(false),
    token: z.string().min(1).optional(),
    /** Overrides of the job's parameters for this run (validated against the job's schema). */
    params: z.record(z.string(), z.unknown()).optional(),
    /** Chosen by the caller to follow `maintenanceProgressSubject(runId)`; generated otherwise. */
    runId: IdSchema.optional(),
  })
  .strict();
export type RunMaintenanceRequest = z.input<typeof RunMaintenanceRequestSchema>;

export const RunMaintenanceReplySchema = MaintenanceRunRecordSchema.extend({
  tenant: TenantIdSchema,
  /** Whether the run record reached the log (a run that could not record still reports). */
  recorded: z.boolean(),
  /** GC dry run: the token for exactly the previewed set, and when it expires. */
  token: z.string().nullable(),
  tokenExpiresAt: TimestampSchema.nullable(),
});
export type RunMaintenanceReply = z.infer<typeof RunMaintenanceReplySchema>;

/** `cairn.maintenance.status`: the scheduler as it stands (default: every tenant it knows). */
export const MaintenanceStatusRequestSchema = z.object({ tenant: TenantIdSchema.optional() }).strict();
export type MaintenanceStatusRequest = z.input<typeof MaintenanceStatusRequestSchema>;

export const MaintenanceStatusReplySchema = z.object({
  instance: z.string(),
  scheduler: z.boolean(),
  /** Tenants whose runner lock this copy holds right now. */
  running: z.array(z.object({ tenant: z.string(), job: MaintenanceJobSchema, runId: IdSchema })),
  tenants: z.array(
    z.object({
      tenant: z.string(),
      jobs: z.array(
        JobScheduleSchema.extend({
          job: MaintenanceJobSchema,
          lastRun: z
            .object({
              runId: IdSchema,
              mode: z.enum(["dry_run", "apply"]),
              outcome: z.enum(["ok", "partial", "failed"]),
              finishedAt: TimestampSchema,
            })
            .nullable(),
          nextRunAt: TimestampSchema.nullable(),
        }),
      ),
    }),
  ),
});
export type MaintenanceStatusReply = z.infer<typeof MaintenanceStatusReplySchema>;
