// The doctor's report: findings with severity and fix, read models against the log, every
// projection's position and dead letters, open work. No memory content in it, ever.
import { z } from "zod";
import { IdSchema, TimestampSchema } from "../memory.ts";
import { TenantIdSchema } from "../principal.ts";

export const doctorSeverities = ["info", "warn", "error"] as const;

export const DoctorFindingSchema = z.object({
  code: z.enum([
    "projection_lag",
    "consumer_backlog",
    "relay_backlog",
    "dead_letters",
    "document_missing",
    "document_stale",
    "document_unexplained",
    "document_not_purged",
    "verification_due",
    "inbox_aging",
    "unavailable",
  ]),
  severity: z.enum(doctorSeverities),
  message: z.string(),
  count: z.number().int().nonnegative(),
  /** What fixes it: the repair job, a projection rebuild, a GC, a review, or nothing to do. */
  fix: z.enum(["repair", "rebuild", "gc", "review", "none"]),
});
export type DoctorFinding = z.infer<typeof DoctorFindingSchema>;

const idSample = z.array(IdSchema).max(50);

export const DriftReportSchema = z.object({
  readModel: z.enum(["lexical", "vector"]),
  /** The log position the read model had applied; documents are compared as of it. */
  position: z.number().int().nonnegative(),
  checked: z.number().int().nonnegative(),
  missing: z.number().int().nonnegative(),
  stale: z.number().int().nonnegative(),
  unexplained: z.number().int().nonnegative(),
  /** Purged in the log, yet the read model still holds text for it. */
  notPurged: z.number().int().nonnegative(),
  /** Up to 50 ids per kind of drift. */
  ids: z.object({ missing: idSample, stale: idSample, unexplained: idSample, notPurged: idSample }),
});
export type DriftReport = z.infer<typeof DriftReportSchema>;

/** `cairn.maintenance.doctor`: the health report (no memory content in it, ever). */
export const DoctorRequestSchema = z
  .object({
    /** One tenant's documents and open work (default: every tenant). */
    tenant: TenantIdSchema.optional(),
    /** Compare every document (default: a sample of `sampleSize`). */
    full: z.boolean().default(false),
    sampleSize: z.number().int().min(1).max(100_000).default(500),
    /** Only the status, the one-line summary and the findings (cheap; for `memory_status`). */
    summaryOnly: z.boolean().default(false),
  })
  .strict();
export type DoctorRequest = z.input<typeof DoctorRequestSchema>;

export const DoctorReportSchema = z.object({
  generatedAt: TimestampSchema,
  tenant: z.string().nullable(),
  mode: z.enum(["sample", "full", "summary"]),
  status: z.enum(["ok", "warn", "error"]),
  /** One line a person or a model can read at a glance. */
  summary: z.string(),
  findings: z.array(DoctorFindingSchema),
  log: z.object({ position: z.number().int().nonnegative() }),
  relay: z.object({ checkpoint: z.number().int().nonnegative(), backlog: z.number().int().nonnegative() }),
  /** Every read model of every service: its serving generation, checkpoint, lag and open dead letters. */
  projections: z.array(
    z.object({
      name: z.string(),
      service: z.string(),
      generation: z.number().int().nonnegative(),
      position: z.number().int().nonnegative(),
      lag: z.number().int().nonnegative(),
      deadLetters: z.number().int().nonnegative(),
      rebuilding: z
        .object({ generation: z.number().int().positive(), position: z.number().int() })
        .nullable(),
      /** The copy of the service applying it, when copies share the projections. */
      appliedBy: z.string().nullable().optional(),
    }),
  ),
  consumers: z.array(
    z.object({
      name: z.string(),
      pending: z.number().int().nonnegative(),
      ackPending: z.number().int().nonnegative(),
      redelivered: z.number().int().nonnegative(),
    }),
  ),
  deadLetters: z.array(
    z.object({
      projection: z.string(),
      count: z.number().int().nonnegative(),
      lastAt: TimestampSchema.nullable(),
    }),
  ),
  drift: z.array(DriftReportSchema),
  verification: z.object({
    due: z.number().int().nonnegative(),
    byKind: z.record(z.string(), z.number().int().nonnegative()),
  }),
  inbox: z.object({
    pendingProposals: z.number().int().nonnegative(),
    oldestProposalAgeHours: z.number().nonnegative().nullable(),
    openHandoffs: z.number().int().nonnegative(),
    oldestHandoffAgeHours: z.number().nonnegative().nullable(),
  }),
});
export type DoctorReport = z.infer<typeof DoctorReportSchema>;
