import { type MaintenanceJob, maintenanceJobs } from "@cairn/contracts";
import { projectionRuntimeEnv } from "@cairn/projection-runtime";
import { baseEnvSchema } from "@cairn/service-runtime";
import { z } from "zod";

const flag = z
  .enum(["0", "1", "true", "false", "on", "off"])
  .transform((v) => v === "1" || v === "true" || v === "on");

/** `CAIRN_MAINTENANCE_<JOB>_{ENABLED,EVERY_MINUTES,APPLY}`: the deployment's schedule of one job. */
export function jobEnvName(job: MaintenanceJob, setting: "ENABLED" | "EVERY_MINUTES" | "APPLY"): string {
  return `CAIRN_MAINTENANCE_${job.toUpperCase()}_${setting}`;
}

const jobSettings = Object.fromEntries(
  maintenanceJobs.flatMap((job) => [
    [jobEnvName(job, "ENABLED"), flag.optional()],
    [
      jobEnvName(job, "EVERY_MINUTES"),
      z.coerce
        .number()
        .int()
        .min(1)
        .max(7 * 24 * 60)
        .optional(),
    ],
    [jobEnvName(job, "APPLY"), flag.optional()],
  ]),
) as Record<string, z.ZodOptional<z.ZodType<boolean | number>>>;

/** The maintenance service's settings; each has a default that works locally. */
export const maintenanceEnvSchema = baseEnvSchema.extend({
  /** Role the Postgres connections switch to (empty: the login user's rights). */
  CAIRN_DB_ROLE: z.string().default("cairn_app"),
  /** `0` switches the scheduler off in this copy (jobs still run on request). */
  CAIRN_MAINTENANCE_SCHEDULER: flag.default(true),
  /** How often the scheduler looks for due jobs. */
  CAIRN_MAINTENANCE_TICK_MS: z.coerce.number().int().min(100).default(60_000),
  /** How long one command to ingest, or one query to search and ranking, may take. */
  CAIRN_MAINTENANCE_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** An OpenAI-compatible chat endpoint for consolidation summaries (unset: extractive summaries). */
  CAIRN_SUMMARY_URL: z.url().optional(),
  CAIRN_SUMMARY_MODEL: z.string().min(1).default("gpt-4o-mini"),
  CAIRN_SUMMARY_API_KEY: z.string().optional(),
  CAIRN_SUMMARY_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
  /** The view's durable consumer is `<prefix>-view`. */
  CAIRN_MAINTENANCE_CONSUMER_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default("maintenance"),
  ...projectionRuntimeEnv("MAINTENANCE"),
  ...jobSettings,
});
export type MaintenanceEnv = z.infer<typeof maintenanceEnvSchema>;
