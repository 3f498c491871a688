import { z } from "zod";
import { MaintenanceSettingsSchema } from "../maintenance/jobs.ts";
import { IdSchema, TimestampSchema } from "../memory.ts";

export const keyTypes = ["concept", "name", "proper_noun"] as const;
export const KeyTypeSchema = z.enum(keyTypes);
export type KeyType = z.infer<typeof KeyTypeSchema>;

/** Key streams (`key-<keyId>`): the associative graph. */
export const keyEventSchemas = {
  "key.linked": z.object({
    keyId: IdSchema,
    label: z.string(),
    type: KeyTypeSchema,
    memoryId: IdSchema,
  }),
  "key.merged": z.object({ keyId: IdSchema, intoKeyId: IdSchema, alias: z.string() }),
} as const;

/**
 * Activity streams: signals that must not move a memory's version. Feedback goes on the
 * memory's own activity stream (`activity-<memoryId>`); each recall is a stream of its own
 * (`activity-<recallId>`), so concurrent recalls never contend.
 */
export const activityEventSchemas = {
  "feedback.given": z.object({
    memoryId: IdSchema,
    useful: z.boolean(),
    agent: z.string(),
    note: z.string().nullable(),
  }),
  /**
   * Memories an agent was shown or read. The search query itself is not kept (it could never be
   * erased from the log): only its topic terms, what hot topics count, and whether it was a
   * deliberate read. Events recorded before that carry the query text in `query` and neither
   * of the others; readers derive both from it.
   */
  "memories.recalled": z.object({
    memoryIds: z.array(IdSchema),
    agent: z.string(),
    viaKey: IdSchema.nullable(),
    /** The query as the agent wrote it: only in events recorded before recalls kept terms; null since. */
    query: z.string().nullable(),
    /** The memories were opened, or reached through a key, rather than listed by a search. */
    read: z.boolean().optional(),
    /** The query's topic terms (@cairn/text-analysis `analyzeText`, distinct); empty for a read. */
    terms: z.array(z.string()).optional(),
  }),
} as const;

export const RankingWeightsSchema = z.object({
  halfLifeDays: z.number().positive(),
  sentiment: z.number().min(1),
  feedback: z.number().min(1),
  hotTopic: z.number().min(1),
  attention: z.number().min(1),
  depth: z.number().min(1),
  /** Bound of the time-decay factor: age costs at most this factor (1 = no decay). Added later, so optional. */
  decay: z.number().min(1).optional(),
  /**
   * Bound of the factor for how well a memory fits what a question asks beyond its words (who
   * it names, the kind of answer, the time); 1 turns it off. Added later, so optional.
   */
  intent: z.number().min(1).optional(),
});
export type RankingWeights = z.infer<typeof RankingWeightsSchema>;

/**
 * How search finds and keeps memories for a tenant. `vectorWeight`: the vector part of hybrid
 * relevance (null: the embedder's own weight, small for the local one). `relevanceFloor`: the
 * share of a query (idf-weighted, in [0, 1]) a memory must hold to be returned; a memory the
 * embedder finds very close, or an episode neighbour of a kept one, is kept below it.
 * `episodeSpread`: the share of a memory's relevance its neighbours in the same episode
 * receive (0: none).
 */
export const RetrievalSettingsSchema = z
  .object({
    vectorWeight: z.number().min(0).max(1).nullable().default(null),
    relevanceFloor: z.number().min(0).max(1).default(0.15),
    episodeSpread: z.number().min(0).max(1).default(0.5),
  })
  .strict();
export type RetrievalSettings = z.infer<typeof RetrievalSettingsSchema>;
export const defaultRetrievalSettings: RetrievalSettings = RetrievalSettingsSchema.parse({});

export const TenantSettingsSchema = z.object({
  skipPatterns: z.array(z.string()),
  workflowLock: z.object({ reason: z.string(), expiresAt: TimestampSchema }).nullable(),
  rankingWeights: RankingWeightsSchema,
  synonyms: z.array(z.array(z.string()).min(2)),
  /** Per-job schedule and parameters of the maintenance service (added later, so optional). */
  maintenance: MaintenanceSettingsSchema.optional(),
  /** Retrieval (added later, so optional; absent: `defaultRetrievalSettings`). */
  retrieval: RetrievalSettingsSchema.optional(),
  /**
   * False positives of secret detection ingest lets through for this tenant: each entry is an
   * exact value, or a regular expression the whole flagged value must match (added later, so
   * optional; absent: none).
   */
  secretAllowList: z.array(z.string()).optional(),
});
export type TenantSettings = z.infer<typeof TenantSettingsSchema>;

/** Tenant streams (`tenant-<tenant>`): settings, changed as a whole or in part. */
export const tenantEventSchemas = {
  "tenant.settings_changed": TenantSettingsSchema.partial(),
} as const;
