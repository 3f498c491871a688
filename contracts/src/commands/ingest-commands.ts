import { z } from "zod";
import { IdSchema, KindSchema, limits, ScopeSchema, TimestampSchema } from "../memory.ts";
import { PrincipalSchema } from "../principal.ts";

const text = (max: number) => z.string().max(max);

/** What an agent writes. Unknown fields are refused (`.strict()`). */
export const MemoryInputSchema = z
  .object({
    slot: z.string().min(1),
    kind: KindSchema.default("note"),
    content: z.string().min(1),
    title: z.string().optional(),
    tags: z.array(z.string()).default([]),
    aliases: z.array(z.string()).default([]),
    keys: z.array(z.string()).default([]),
    scope: ScopeSchema.default("team"),
    project: z.string().nullable().default(null),
    source: z.string().nullable().default(null),
    validFrom: TimestampSchema.nullable().default(null),
  })
  .strict();
export type MemoryInput = z.input<typeof MemoryInputSchema>;

/** Changes to a memory, proposal or handoff; scope and slot are not changed by an update. */
export const MemoryChangesSchema = z
  .object({
    kind: KindSchema,
    content: z.string().min(1),
    title: z.string(),
    tags: z.array(z.string()),
    aliases: z.array(z.string()),
    keys: z.array(z.string()),
    project: z.string().nullable(),
    source: z.string().nullable(),
    validFrom: TimestampSchema.nullable(),
  })
  .partial()
  .strict();

const base = { principal: PrincipalSchema, correlationId: z.string().max(200).optional() };
const target = { ...base, id: IdSchema, expectedVersion: z.number().int().positive() };
const reason = text(limits.reasonMaxChars).nullable().default(null);

/**
 * Destructive commands (delete, supersede, resolve a conflict) run in two steps: `dryRun`
 * returns the plan and a short-lived token bound to it and to the versions it saw; the
 * same command with that `token` executes it.
 */
const twoStep = { dryRun: z.boolean().default(false), token: z.string().optional() };

export const ingestCommandSchemas = {
  "memory.create": z.object({ ...base, memory: MemoryInputSchema }).strict(),
  "memory.update": z.object({ ...target, changes: MemoryChangesSchema }).strict(),
  "memory.supersede": z
    .object({
      ...target,
      replacement: MemoryInputSchema.extend({ slot: z.string().min(1).optional() }).strict(),
      reason,
      ...twoStep,
    })
    .strict(),
  "memory.archive": z.object({ ...target, reason }).strict(),
  "memory.delete": z.object({ ...target, reason, ...twoStep }).strict(),
  "memory.restore": z.object({ ...target, reason }).strict(),
  "memory.invalidate": z.object({ ...target, invalidAt: TimestampSchema.nullable(), reason }).strict(),
  "memory.verify": z.object({ ...target, note: reason }).strict(),
  "memory.resolve_conflict": z
    .object({
      ...base,
      keepId: IdSchema,
      otherId: IdSchema,
      action: z.enum(["supersede", "archive", "delete"]),
      reason,
      ...twoStep,
    })
    .strict(),
  "proposal.submit": z.object({ ...base, proposal: MemoryInputSchema }).strict(),
  "proposal.revise": z.object({ ...target, changes: MemoryChangesSchema }).strict(),
  "proposal.promote": z.object({ ...target, changes: MemoryChangesSchema.optional() }).strict(),
  "proposal.reject": z.object({ ...target, reason }).strict(),
  "handoff.open": z.object({ ...base, handoff: MemoryInputSchema }).strict(),
  "handoff.update": z.object({ ...target, changes: MemoryChangesSchema }).strict(),
  "handoff.complete": z.object({ ...target, summary: reason }).strict(),
  "feedback.give": z.object({ ...base, memoryId: IdSchema, useful: z.boolean(), note: reason }).strict(),
  "recalls.record": z
    .object({
      ...base,
      memoryIds: z.array(IdSchema).min(1).max(200),
      viaKey: IdSchema.nullable().default(null),
      query: text(2000).nullable().default(null),
    })
    .strict(),
} as const;

export type IngestCommandName = keyof typeof ingestCommandSchemas;
export type IngestCommand<N extends IngestCommandName> = z.infer<(typeof ingestCommandSchemas)[N]>;
export const ingestCommandNames = Object.keys(ingestCommandSchemas) as IngestCommandName[];

export function ingestSubject(command: IngestCommandName): string {
  return `cairn.ingest.${command}`;
}

/** Every write answers with the stream's id, its new version and the log position. */
export const WriteResultSchema = z.object({
  id: IdSchema,
  version: z.number().int().positive(),
  position: z.number().int().positive(),
});
export type WriteResult = z.infer<typeof WriteResultSchema>;

/** The answer to a dry run of a destructive command. */
export const PlanResultSchema = z.object({
  dryRun: z.literal(true),
  plan: z.array(
    z.object({
      id: IdSchema,
      action: z.string(),
      version: z.number().int().positive(),
      slot: z.string(),
    }),
  ),
  token: z.string(),
  expiresAt: TimestampSchema,
});
export type PlanResult = z.infer<typeof PlanResultSchema>;
