import { z } from "zod";
import { KeyTypeSchema, type RankingWeights, TenantSettingsSchema } from "./events/other-events.ts";
import { IdSchema, KindSchema, TimestampSchema } from "./memory.ts";
import { PrincipalSchema } from "./principal.ts";
import { CandidateScoresSchema } from "./queries.ts";

/**
 * The ranking service's requests: query expansion and skip rules before retrieval
 * (`expand`), re-ranking of the candidates after it (`rerank`), memory signals for other
 * services (`signals`), and the key graph (`keys.recall`, `keys.read`, `keys.related`).
 *
 * A recall runs: `ranking.expand` → (skip? answer nothing) → `search.results` with the
 * expansion terms, where search has `ranking.rerank` order its candidates. Reading a memory through a key is recorded with
 * `cairn.ingest.recalls.record` (`viaKey`), which is what reinforces the link and the depth.
 */
export const rankingSubjects = {
  expand: "cairn.ranking.expand",
  rerank: "cairn.ranking.rerank",
  signals: "cairn.ranking.signals",
  keysRecall: "cairn.keys.recall",
  keysRead: "cairn.keys.read",
  keysRelated: "cairn.keys.related",
} as const;

/** Defaults of the tenant's ranking weights; a weight of 1 disables its factor. */
export const defaultRankingWeights: RankingWeights = {
  halfLifeDays: 60,
  sentiment: 1.2,
  feedback: 1.5,
  hotTopic: 1.1,
  attention: 1.1,
  depth: 1.3,
  decay: 2,
  intent: 2,
};

/** Tenant settings as the ranking service applies them when the tenant changed none. */
export const defaultTenantSettings = TenantSettingsSchema.parse({
  skipPatterns: [],
  workflowLock: null,
  rankingWeights: defaultRankingWeights,
  synonyms: [],
});

const afterPosition = z.number().int().nonnegative().optional();

/** Why a query was answered with nothing, without touching the indexes. */
export const SkipReasonSchema = z.object({
  reason: z.enum(["skip_pattern", "workflow_lock"]),
  /** The built-in or tenant pattern that matched, for `skip_pattern`. */
  pattern: z.string().optional(),
  /** When the lock ends, for `workflow_lock`. */
  expiresAt: z.string().optional(),
  lockReason: z.string().optional(),
});
export type SkipReason = z.infer<typeof SkipReasonSchema>;

/** `cairn.ranking.expand`: skip rules, then synonyms and co-occurring entities of the query. */
export const ExpandRequestSchema = z
  .object({
    principal: PrincipalSchema,
    query: z.string().min(1).max(4000),
    /** Co-occurring entities added per query entity (default: service setting). */
    maxEntities: z.number().int().min(0).max(20).optional(),
    afterPosition,
  })
  .strict();
export type ExpandRequest = z.input<typeof ExpandRequestSchema>;

export const ExpansionSchema = z.object({
  term: z.string(),
  source: z.enum(["synonym", "cooccurrence"]),
  /** The query term or entity it was reached from. */
  from: z.string(),
  /** Association strength in (0, 1]. */
  weight: z.number(),
});
export type Expansion = z.infer<typeof ExpansionSchema>;

export const ExpandReplySchema = z.object({
  /** Set when the query must be answered with nothing; `terms` is then empty. */
  skip: SkipReasonSchema.nullable(),
  expansions: z.array(ExpansionSchema),
  /** The expansion terms, deduplicated, ready for `CandidatesRequest.expansions`. */
  terms: z.array(z.string()),
  position: z.number().int().nonnegative(),
});
export type ExpandReply = z.infer<typeof ExpandReplySchema>;

/**
 * `cairn.ranking.rerank`: the final top k of a query's candidates (search asks it for a
 * `cairn.search.results`). A
 * candidate is search's scores only: ranking reads what its factors need of the memory (its
 * terms, age, sentiment) from its own read model, so no document travels to it.
 */
export const RerankCandidateSchema = CandidateScoresSchema;
export type RerankCandidate = z.infer<typeof RerankCandidateSchema>;

export const RerankRequestSchema = z
  .object({
    principal: PrincipalSchema,
    query: z.string().min(1).max(4000),
    candidates: z.array(RerankCandidateSchema).max(500),
    k: z.number().int().min(1).max(200).default(10),
    /** Return every factor's value per result. */
    explain: z.boolean().default(false),
    /** Expansion terms that were used for retrieval (they count for the diversity step). */
    expansions: z.array(z.string()).max(50).default([]),
    afterPosition,
  })
  .strict();
export type RerankRequest = z.input<typeof RerankRequestSchema>;

/** The named factors of a score; the score is their product. 1 means "no effect". */
export const RankingFactorsSchema = z.object({
  /** Retrieval relevance, 0..1: search's fused relevance relative to the best candidate's. */
  relevance: z.number(),
  decay: z.number(),
  sentiment: z.number(),
  feedback: z.number(),
  hotTopic: z.number(),
  attention: z.number(),
  depth: z.number(),
  /** How well it fits what the question asks beyond its words (see `IntentMatchSchema`). */
  intent: z.number(),
  /** The MMR step: 1 unless a near-duplicate of a better result was already chosen. */
  diversity: z.number(),
});
export type RankingFactors = z.infer<typeof RankingFactorsSchema>;

/** The kinds of answer a question word asks for: "when" a time, "where" a place, "who" a person. */
export const answerKinds = ["time", "place", "person"] as const;
export const AnswerKindSchema = z.enum(answerKinds);
export type AnswerKind = z.infer<typeof AnswerKindSchema>;

/**
 * What the question was understood to ask beyond its words, and what of it a memory meets:
 * the `intent` factor's reasons (explain only).
 */
export const IntentMatchSchema = z.object({
  /** The kind of answer its question word asks for. */
  asks: AnswerKindSchema.nullable(),
  /** The times it names, as understood (`anyYear`: a month or day named without its year). */
  times: z.array(
    z.object({ text: z.string(), from: TimestampSchema, to: TimestampSchema, anyYear: z.boolean() }),
  ),
  /** Names in the question the memory is by (its speaker) or about (its entities). */
  names: z.array(z.string()),
  /** Whether it holds the kind of answer asked for (null: the question asks for none). */
  answers: z.boolean().nullable(),
  /** Whether its time, or a time it names, is one the question names (null: the question names none). */
  inTime: z.boolean().nullable(),
  /** The share of the question's cues it meets, 0..1. */
  fit: z.number(),
});
export type IntentMatch = z.infer<typeof IntentMatchSchema>;

/** The raw signals behind the factors, for `explain`. */
export const MemorySignalsSchema = z.object({
  id: IdSchema,
  useful: z.number().int().nonnegative(),
  notUseful: z.number().int().nonnegative(),
  /** Times the memory was surfaced or read (`memories.recalled`), and the last time. */
  recalls: z.number().int().nonnegative(),
  lastRecalledAt: z.string().nullable(),
  /** Deliberate reads (opened, or reached through a key), and the last one: what deepens a memory. */
  reads: z.number().int().nonnegative(),
  lastReadAt: z.string().nullable(),
  /** Stability from 0 to 1, decayed to now. */
  depth: z.number(),
  /** Normalised attention (0..1) and hot-topic heat (0..1) of the memory's terms. */
  attention: z.number(),
  hotTopic: z.number(),
});
export type MemorySignals = z.infer<typeof MemorySignalsSchema>;

/** The signals of a memory nothing has happened to yet (or that no read model knows). */
export const noMemorySignals: Omit<MemorySignals, "id"> = {
  useful: 0,
  notUseful: 0,
  recalls: 0,
  lastRecalledAt: null,
  reads: 0,
  lastReadAt: null,
  depth: 0,
  attention: 0,
  hotTopic: 0,
};

export const RankedResultSchema = RerankCandidateSchema.extend({
  score: z.number(),
  factors: RankingFactorsSchema.optional(),
  signals: MemorySignalsSchema.optional(),
  /** The two parts of `factors.relevance`, each relative to the best candidate's (explain only). */
  relevance: z.object({ lexical: z.number(), vector: z.number() }).optional(),
  /** What the question asks beyond its words and what of it the memory meets (explain only). */
  intent: IntentMatchSchema.optional(),
});
export type RankedResult = z.infer<typeof RankedResultSchema>;

export const RerankReplySchema = z.object({
  results: z.array(RankedResultSchema),
  skip: SkipReasonSchema.nullable(),
  /** The log position the ranking projections had reached. */
  position: z.number().int().nonnegative(),
});
export type RerankReply = z.infer<typeof RerankReplySchema>;

/** `cairn.ranking.signals`: the signals of some memories (e.g. depth before a supersede). */
export const SignalsRequestSchema = z
  .object({ principal: PrincipalSchema, ids: z.array(IdSchema).min(1).max(500), afterPosition })
  .strict();
export type SignalsRequest = z.input<typeof SignalsRequestSchema>;
export const SignalsReplySchema = z.object({
  signals: z.array(MemorySignalsSchema),
  position: z.number().int().nonnegative(),
});
export type SignalsReply = z.infer<typeof SignalsReplySchema>;

/** `cairn.keys.recall`: keys matching a query; labels and counts only, never memory content. */
export const KeysRecallRequestSchema = z
  .object({
    principal: PrincipalSchema,
    query: z.string().min(1).max(4000),
    limit: z.number().int().min(1).max(100).default(10),
    afterPosition,
  })
  .strict();
export type KeysRecallRequest = z.input<typeof KeysRecallRequestSchema>;

export const KeyMatchSchema = z.object({
  keyId: IdSchema,
  label: z.string(),
  aliases: z.array(z.string()),
  type: KeyTypeSchema,
  /** Memories filed under the key that the principal may see. */
  linkedCount: z.number().int().nonnegative(),
  /** Linked to so many memories that it says little (listings are paginated). */
  hub: z.boolean(),
  /** IDF-style, 0..1: 1 for a key on one memory, towards 0 for a key on every memory. */
  specificity: z.number(),
  score: z.number(),
});
export type KeyMatch = z.infer<typeof KeyMatchSchema>;

export const KeysRecallReplySchema = z.object({
  keys: z.array(KeyMatchSchema),
  position: z.number().int().nonnegative(),
});
export type KeysRecallReply = z.infer<typeof KeysRecallReplySchema>;

/** `cairn.keys.read`: the memories filed under a key, strongest link first; no content. */
export const KeysReadRequestSchema = z
  .object({
    principal: PrincipalSchema,
    keyId: IdSchema,
    limit: z.number().int().min(1).max(100).default(20),
    offset: z.number().int().nonnegative().default(0),
    afterPosition,
  })
  .strict();
export type KeysReadRequest = z.input<typeof KeysReadRequestSchema>;

export const KeyedMemorySchema = z.object({
  id: IdSchema,
  slot: z.string(),
  title: z.string(),
  kind: KindSchema,
  depth: z.number(),
  /** Hebbian weight of the key→memory link: 1 when filed, growing with each traversal. */
  linkWeight: z.number(),
});
export type KeyedMemory = z.infer<typeof KeyedMemorySchema>;

export const KeysReadReplySchema = z.object({
  key: KeyMatchSchema.omit({ score: true }),
  memories: z.array(KeyedMemorySchema),
  total: z.number().int().nonnegative(),
  /** Offset of the next page, null on the last one. */
  nextOffset: z.number().int().nonnegative().nullable(),
  position: z.number().int().nonnegative(),
});
export type KeysReadReply = z.infer<typeof KeysReadReplySchema>;

/** `cairn.keys.related`: one hop from a memory: its keys, and their other memories. */
export const KeysRelatedRequestSchema = z
  .object({
    principal: PrincipalSchema,
    memoryId: IdSchema,
    perKey: z.number().int().min(1).max(50).default(5),
    afterPosition,
  })
  .strict();
export type KeysRelatedRequest = z.input<typeof KeysRelatedRequestSchema>;

export const KeysRelatedReplySchema = z.object({
  keys: z.array(
    z.object({
      key: KeyMatchSchema.omit({ score: true }),
      memories: z.array(KeyedMemorySchema),
    }),
  ),
  position: z.number().int().nonnegative(),
});
export type KeysRelatedReply = z.infer<typeof KeysRelatedReplySchema>;
