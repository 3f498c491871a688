// The maintenance service's contract: its jobs and their settings (defaults, per-tenant
// overrides), the run record every run leaves in the log, and its requests (`run`, `doctor`,
// `status`) with the progress messages a long run publishes.
//
// Nothing here carries memory content: run records, reports and progress name memories by id
// and explain decisions by their dimensions (age, feedback, depth, similarity…), never by text.
import { z } from "zod";
import { IdSchema, KindSchema, TimestampSchema } from "./memory.ts";
import { PrincipalSchema, TenantIdSchema } from "./principal.ts";

export const maintenanceJobs = [
  "consolidation",
  "forgetting",
  "dedup",
  "synonyms",
  "verification",
  "gc",
  "repair",
] as const;
export const MaintenanceJobSchema = z.enum(maintenanceJobs);
export type MaintenanceJob = z.infer<typeof MaintenanceJobSchema>;

/** The principal's agent id maintenance acts as, in every tenant (an admin and primary agent). */
export const maintenanceAgent = "maintenance";

const days = z.number().min(0).max(36_500);
const ratio = z.number().min(0).max(1);
const count = (max: number) => z.number().int().min(1).max(max);

/**
 * Consolidation: active memories at least `minAgeDays` old, of one kind and one visibility
 * domain (scope, project, owning agent), whose pairwise similarity (shared terms, keys,
 * entities; vector similarity when `useVectors`) reaches `similarity`, in groups of
 * `minGroup`..`maxGroup`, become one memory one level higher that supersedes them.
 */
export const ConsolidationParamsSchema = z
  .object({
    minAgeDays: days,
    minGroup: count(50).min(2),
    maxGroup: count(50).min(2),
    similarity: ratio,
    useVectors: z.boolean(),
    maxGroupsPerRun: count(500),
  })
  .strict();

/**
 * Forgetting: a memory of one of `kinds` is archived when every dimension says it is not
 * used: older than `minAgeDays`, no positive feedback ever, |sentiment| ≤ `maxEmotion`,
 * attention ≤ `maxAttention`, depth ≤ `maxDepth`, not recalled within `recallWindowDays`.
 */
export const ForgettingParamsSchema = z
  .object({
    minAgeDays: days,
    recallWindowDays: days,
    maxEmotion: ratio,
    maxAttention: ratio,
    maxDepth: ratio,
    kinds: z.array(KindSchema).min(1),
    maxPerRun: count(200),
  })
  .strict();

/** Dedup: two active memories of one domain whose normalised texts (or vectors) are this similar. */
export const DedupParamsSchema = z
  .object({
    textSimilarity: ratio,
    vectorSimilarity: ratio,
    useVectors: z.boolean(),
    maxPerRun: count(500),
  })
  .strict();

/** Synonym discovery: Jaccard co-occurrence of terms over the tenant's active memories. */
export const SynonymParamsSchema = z
  .object({
    minFrequency: count(100_000),
    threshold: ratio,
    minCooccurrence: count(100_000),
    maxNewGroups: count(1000),
  })
  .strict();

/** Verification reminders: memories of these kinds never verified, or verified longer ago. */
export const VerificationParamsSchema = z
  .object({ reviewDays: days, kinds: z.array(KindSchema).min(1) })
  .strict();

/** Garbage collection: deleted memories deleted at least `olderThanDays` ago are purged. */
export const GcParamsSchema = z.object({ olderThanDays: days, maxPerRun: count(200) }).strict();

/** Repair: what the doctor finds in the read models (every document, or a sample), re-projected. */
export const RepairParamsSchema = z.object({ full: z.boolean(), sampleSize: count(100_000) }).strict();

export const maintenanceParamsSchemas = {
  consolidation: ConsolidationParamsSchema,
  forgetting: ForgettingParamsSchema,
  dedup: DedupParamsSchema,
  synonyms: SynonymParamsSchema,
  verification: VerificationParamsSchema,
  gc: GcParamsSchema,
  repair: RepairParamsSchema,
} as const;
export type MaintenanceParams = {
  [J in MaintenanceJob]: z.infer<(typeof maintenanceParamsSchemas)[J]>;
};

export const defaultMaintenanceParams: MaintenanceParams = {
  consolidation: {
    minAgeDays: 7,
    minGroup: 3,
    maxGroup: 8,
    similarity: 0.3,
    useVectors: true,
    maxGroupsPerRun: 20,
  },
  forgetting: {
    minAgeDays: 30,
    recallWindowDays: 30,
    maxEmotion: 0.3,
    maxAttention: 0.2,
    maxDepth: 0.3,
    kinds: ["fact", "episode", "note"],
    maxPerRun: 200,
  },
  dedup: { textSimilarity: 0.85, vectorSimilarity: 0.97, useVectors: true, maxPerRun: 100 },
  // The seeds' defaults (Keepsake): minimum frequency 10, Jaccard 0.5, co-occurrence 3.
  synonyms: { minFrequency: 10, threshold: 0.5, minCooccurrence: 3, maxNewGroups: 50 },
  verification: { reviewDays: 180, kinds: ["constraint", "fix", "workflow"] },
  gc: { olderThanDays: 30, maxPerRun: 200 },
  repair: { full: false, sampleSize: 500 },
};

/** When a job runs by itself, per tenant. `apply: false` makes the scheduled run a dry run. */
export const JobScheduleSchema = z
  .object({
    enabled: z.boolean(),
    everyMinutes: z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 60),
    apply: z.boolean(),
  })
  .strict();
export type JobSchedule = z.infer<typeof JobScheduleSchema>;

export const defaultMaintenanceSchedules: Record<MaintenanceJob, JobSchedule> = {
  consolidation: { enabled: true, everyMinutes: 120, apply: true },
  forgetting: { enabled: true, everyMinutes: 120, apply: false },
  dedup: { enabled: true, everyMinutes: 60, apply: true },
  synonyms: { enabled: true, everyMinutes: 480, apply: true },
  verification: { enabled: true, everyMinutes: 24 * 60, apply: true },
  // Purging is irreversible: scheduled GC previews only unless a tenant or the deployment says so.
  gc: { enabled: true, everyMinutes: 24 * 60, apply: false },
  repair: { enabled: false, everyMinutes: 60, apply: false },
};

const jobSettings = <S extends z.ZodObject>(params: S) =>
  JobScheduleSchema.extend({ params: params.partial().strict() }).partial().strict();

/**
 * A tenant's maintenance settings (in its tenant settings, key `maintenance`): per job, any of
 * `enabled`, `everyMinutes`, `apply` and `params`, over the deployment's defaults.
 */
export const MaintenanceSettingsSchema = z
  .object({
    consolidation: jobSettings(ConsolidationParamsSchema),
    forgetting: jobSettings(ForgettingParamsSchema),
    dedup: jobSettings(DedupParamsSchema),
    synonyms: jobSettings(SynonymParamsSchema),
    verification: jobSettings(VerificationParamsSchema),
    gc: jobSettings(GcParamsSchema),
    repair: jobSettings(RepairParamsSchema),
  })
  .partial()
  .strict();
export type MaintenanceSettings = z.infer<typeof MaintenanceSettingsSchema>;

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
