// Maintenance jobs: their names, parameters (with defaults), schedules, and the per-tenant
// settings that override both. Nothing here carries memory content.
import { z } from "zod";
import { KindSchema } from "../memory.ts";

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
