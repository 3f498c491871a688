// What a maintenance run decided and did, recorded in the log (`maintenance.run_recorded`):
// memories by id, decisions by their dimensions, never by text.
import { z } from "zod";
import { IdSchema, TimestampSchema } from "../memory.ts";
import { MaintenanceJobSchema } from "./jobs.ts";

export const maintenanceActions = [
  "consolidate",
  "archive",
  "supersede",
  "add_synonyms",
  "purge",
  "remind_verification",
  "reproject",
  "retry_dead_letters",
] as const;

const detailValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);

/** One decision of a run: what it did (or, in a dry run, would do) to which memories, and why. */
export const MaintenanceActionSchema = z.object({
  action: z.enum(maintenanceActions),
  /** The memories acted on (superseded, archived, purged, reminded, re-projected). */
  ids: z.array(IdSchema),
  /** The memory that results: the consolidated one, or the one kept by a dedup. */
  resultId: IdSchema.nullable(),
  /** The dimensions that made the decision, each as a short phrase with its value. */
  reasons: z.array(z.string()),
  detail: z.record(z.string(), detailValue),
  status: z.enum(["planned", "applied", "failed", "skipped"]),
  /** For `failed`: the error code and message ingest answered. */
  error: z.string().nullable(),
});
export type MaintenanceAction = z.infer<typeof MaintenanceActionSchema>;

/** At most this many actions are kept in a run record; the rest are counted in `truncatedActions`. */
export const maxRecordedActions = 500;

/**
 * A finished run, as recorded in the log (`maintenance.run_recorded`). The commands a run
 * sends carry its `runId` as their correlation id, so its effects can be traced in the log.
 */
export const MaintenanceRunRecordSchema = z.object({
  runId: IdSchema,
  job: MaintenanceJobSchema,
  mode: z.enum(["dry_run", "apply"]),
  trigger: z.enum(["schedule", "manual"]),
  /** Who asked: `maintenance` for the scheduler, else the agent of the principal that asked. */
  requestedBy: z.string(),
  startedAt: TimestampSchema,
  finishedAt: TimestampSchema,
  /** `partial`: some actions failed (a memory changed meanwhile, a token refused). */
  outcome: z.enum(["ok", "partial", "failed"]),
  /** How many memories (or documents) the run looked at. */
  examined: z.number().int().nonnegative(),
  actions: z.array(MaintenanceActionSchema).max(maxRecordedActions),
  truncatedActions: z.number().int().nonnegative(),
  /** The settings the run used (after the tenant's overrides and the request's). */
  params: z.record(z.string(), z.unknown()),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /** The highest log position the run's commands reached (null when it wrote nothing). */
  position: z.number().int().positive().nullable(),
});
export type MaintenanceRunRecord = z.infer<typeof MaintenanceRunRecordSchema>;
