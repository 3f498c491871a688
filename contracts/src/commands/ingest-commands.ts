import { z } from "zod";
import { RankingWeightsSchema, RetrievalSettingsSchema } from "../events/other-events.ts";
import { MaintenanceSettingsSchema } from "../maintenance/jobs.ts";
import { IdSchema, KindSchema, limits, ScopeSchema, TimestampSchema } from "../memory.ts";
import { hasNoNul, nulMessage } from "../parse-request.ts";
import { PrincipalSchema } from "../principal.ts";

// Text is text: a NUL character (U+0000) cannot be stored by Postgres. `parseRequest` refuses
// it in any field; the fields of what an agent writes also say it in their schemas.
const text = (max: number) => z.string().max(max).refine(hasNoNul, nulMessage);
const label = (max: number) => z.string().min(1).max(max).refine(hasNoNul, nulMessage);

/**
 * What an agent writes. Unknown fields are refused (`.strict()`, reported as
 * `unknown_field`); a value over a limit of `limits` is reported as `too_large`.
 */
export const MemoryInputSchema = z
  .object({
    slot: label(limits.slotMaxChars),
    kind: KindSchema.default("note"),
    content: label(limits.contentMaxChars),
    title: text(limits.titleMaxChars).optional(),
    tags: z.array(label(limits.tagMaxChars)).max(limits.maxTags).default([]),
    aliases: z.array(label(limits.slotMaxChars)).max(limits.maxAliases).default([]),
    keys: z.array(label(limits.tagMaxChars)).max(limits.maxKeys).default([]),
    scope: ScopeSchema.default("team"),
    project: text(limits.projectMaxChars).nullable().default(null),
    source: text(limits.sourceMaxChars).nullable().default(null),
    validFrom: TimestampSchema.nullable().default(null),
    /**
     * The conversation, thread or session it is written in, and its place there (a turn
     * number; left out, its creation time orders it).
     */
    episode: z
      .object({
        id: label(limits.episodeMaxChars),
        order: z.number().int().min(0).nullable().default(null),
      })
      .strict()
      .optional(),
  })
  .strict();
export type MemoryInput = z.input<typeof MemoryInputSchema>;

/** One recall: memories a read showed the caller. */
export const RecallSchema = z
  .object({
    memoryIds: z.array(IdSchema).min(1).max(200),
    viaKey: IdSchema.nullable().default(null),
    /**
     * The search that showed them (null: they were opened; `key:<label>`: reached through a
     * key). Only its topic terms are recorded, never the text.
     */
    query: text(2000).nullable().default(null),
  })
  .strict();
export type Recall = z.input<typeof RecallSchema>;

/** Changes to a memory, proposal or handoff; scope and slot are not changed by an update. */
export const MemoryChangesSchema = z
  .object({
    kind: KindSchema,
    content: label(limits.contentMaxChars),
    title: text(limits.titleMaxChars),
    tags: z.array(label(limits.tagMaxChars)).max(limits.maxTags),
    aliases: z.array(label(limits.slotMaxChars)).max(limits.maxAliases),
    keys: z.array(label(limits.tagMaxChars)).max(limits.maxKeys),
    project: text(limits.projectMaxChars).nullable(),
    source: text(limits.sourceMaxChars).nullable(),
    validFrom: TimestampSchema.nullable(),
  })
  .partial()
  .strict();

const base = {
  principal: PrincipalSchema,
  correlationId: z.string().max(200).optional(),
  /**
   * Makes a command safe to retry: a second command with the same key (same tenant and
   * command name) and the same body writes nothing new and answers the first one's result;
   * with another body it is refused (`idempotency_conflict`). Kept with the events in the log,
   * so a key is remembered as long as the log (no expiry) and across restarts.
   */
  idempotencyKey: z.string().min(1).max(200).optional(),
};
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
      ...RecallSchema.shape,
      /**
       * More recalls by the same caller, recorded in the same commit (the gateway gathers a
       * caller's recalls for a moment and sends them together).
       */
      more: z
        .array(RecallSchema)
        .max(limits.maxRecallsPerCommand - 1)
        .default([]),
    })
    .strict(),
  /** Merges one key into another (maintenance's key merging); the merged key's label stays as an alias. */
  "key.merge": z.object({ ...base, keyId: IdSchema, intoKeyId: IdSchema }).strict(),
  /** Changes a tenant's settings, in part; admins only. */
  "tenant.change_settings": z
    .object({
      ...base,
      /** The settings' version read (0: never changed); another is `version_conflict`. Left out: no check. */
      expectedVersion: z.number().int().nonnegative().optional(),
      settings: z
        .object({
          skipPatterns: z.array(text(500)).max(200),
          workflowLock: z
            .object({ reason: text(limits.reasonMaxChars), expiresAt: TimestampSchema })
            .nullable(),
          rankingWeights: RankingWeightsSchema,
          synonyms: z.array(z.array(label(limits.tagMaxChars)).min(2).max(50)).max(1000),
          maintenance: MaintenanceSettingsSchema,
          /** Replaces the whole retrieval setting (fields left out take their defaults). */
          retrieval: RetrievalSettingsSchema,
          /**
           * Replaces the tenant's allow-list of secret-detection false positives: exact values,
           * or regular expressions a whole flagged value must match (not scanned for secrets).
           */
          secretAllowList: z.array(label(limits.secretAllowEntryMaxChars)).max(limits.maxSecretAllowEntries),
        })
        .partial()
        .strict(),
    })
    .strict(),
} as const;

export type IngestCommandName = keyof typeof ingestCommandSchemas;
export type IngestCommand<N extends IngestCommandName> = z.infer<(typeof ingestCommandSchemas)[N]>;
export const ingestCommandNames = Object.keys(ingestCommandSchemas) as IngestCommandName[];

export function ingestSubject(command: IngestCommandName): string {
  return `cairn.ingest.${command}`;
}

const writeResultShape = {
  /** The id of the memory (proposal, handoff, key) written; for feedback the memory's id; for recalls the first recall's (the others under `affected`). */
  id: IdSchema,
  /** That stream's version after the write: the version token for the next update. */
  version: z.number().int().positive(),
  /** The highest log position the write reached: wait for it to read your own write. */
  position: z.number().int().positive(),
};

/**
 * Every write answers with the stream's id, its new version and the log position. A write
 * that changed more than one stream (a supersede, a promotion, a resolved conflict) lists
 * the others under `affected`.
 */
export const WriteResultSchema = z.object({
  ...writeResultShape,
  affected: z.array(z.object(writeResultShape)).optional(),
  /**
   * On the bus only: the command carried an idempotency key that an earlier, committed
   * command already used, and this is that command's answer (nothing was written now). An
   * attempt that raced the first one with the same key gets the same answer, possibly
   * without the mark. The gateway answers a retry exactly as the first time, without it.
   */
  replayed: z.literal(true).optional(),
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

/** What every ingest subject answers (inside the `{ ok, data }` envelope). */
export const IngestReplySchema = z.union([PlanResultSchema, WriteResultSchema]);
export type IngestReply = z.infer<typeof IngestReplySchema>;

export function isPlanResult(reply: IngestReply): reply is PlanResult {
  return (reply as PlanResult).dryRun === true;
}

/** Commands that need a dry run first and then its token. */
export const twoStepCommandNames = ["memory.supersede", "memory.delete", "memory.resolve_conflict"] as const;

/** How long a dry run's token can be used. */
export const planTokenTtlMs = 5 * 60_000;
