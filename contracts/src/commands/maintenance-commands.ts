// Ingest commands the maintenance service sends (any admin may send them too). Maintenance
// never writes the log itself: consolidating, forgetting and purging go through ingest with
// the same two steps as every destructive command (a dry run answers the plan and a token
// bound to it; the same command with the token executes exactly that plan).
import { z } from "zod";
import { MaintenanceRunRecordSchema } from "../maintenance/run-record.ts";
import { IdSchema, limits } from "../memory.ts";
import { PrincipalSchema } from "../principal.ts";
import { MemoryInputSchema } from "./ingest-commands.ts";

const base = {
  principal: PrincipalSchema,
  correlationId: z.string().max(200).optional(),
  idempotencyKey: z.string().min(1).max(200).optional(),
};
const twoStep = { dryRun: z.boolean().default(false), token: z.string().optional() };
const reason = z.string().max(limits.reasonMaxChars).nullable().default(null);
/** The maintenance run a command belongs to (null when sent by hand). */
const runId = IdSchema.nullable().default(null);

/** A memory the command acts on, at the version the sender saw. */
const target = z.object({ id: IdSchema, expectedVersion: z.number().int().positive() }).strict();

export const maintenanceCommandSchemas = {
  /**
   * Records one memory made from `members` (all active memories of one visibility domain) and
   * supersedes each member by it, in one append. `level` is one more than the members' highest.
   */
  "memory.consolidate": z
    .object({
      ...base,
      members: z.array(target).min(2).max(50),
      consolidated: MemoryInputSchema,
      level: z.number().int().min(2).max(100),
      reason,
      runId,
      ...twoStep,
    })
    .strict(),
  /**
   * Archives memories that are no longer used; each item says why (the dimensions that
   * decided it), and that is what its `memory.archived` reason records.
   */
  "memory.forget": z
    .object({
      ...base,
      items: z
        .array(target.extend({ reasons: z.array(z.string().min(1).max(200)).min(1).max(20) }).strict())
        .min(1)
        .max(200),
      runId,
      ...twoStep,
    })
    .strict(),
  /**
   * Purges deleted memories for good: destroys each one's seal (crypto-shredding) and
   * records `memory.purged`. Irreversible, which is why the token binds the exact set.
   */
  "memory.purge": z
    .object({
      ...base,
      items: z.array(target).min(1).max(200),
      reason,
      runId,
      ...twoStep,
    })
    .strict(),
  /** Records a finished maintenance run (`maintenance.run_recorded`); admins only. */
  "maintenance.record_run": z.object({ ...base, run: MaintenanceRunRecordSchema }).strict(),
} as const;

export type MaintenanceCommandName = keyof typeof maintenanceCommandSchemas;
export type MaintenanceCommand<N extends MaintenanceCommandName> = z.infer<
  (typeof maintenanceCommandSchemas)[N]
>;

/** Maintenance commands that need a dry run first and then its token. */
export const twoStepMaintenanceCommandNames = [
  "memory.consolidate",
  "memory.forget",
  "memory.purge",
] as const;

/** Ingest answers these on `cairn.ingest.<command>`, like its other commands. */
export function maintenanceCommandSubject(command: MaintenanceCommandName): string {
  return `cairn.ingest.${command}`;
}
