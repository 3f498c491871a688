import { z } from "zod";
import { AsOfSchema } from "./history.ts";
import {
  IdSchema,
  KindSchema,
  MemoryDocumentSchema,
  ScopeSchema,
  StatusSchema,
  TierSchema,
  TimestampSchema,
} from "./memory.ts";
import { PrincipalSchema } from "./principal.ts";
import { ProjectionStatusSchema } from "./projections.ts";

/**
 * The query that lists instead of searching: every memory the filters and the principal's
 * visibility allow, most recently updated first, up to `candidateK` (from the lexical read
 * model, whatever the mode).
 */
export const listAllQuery = "*";

export const retrievalModes = ["lexical", "vector", "hybrid"] as const;
export const RetrievalModeSchema = z.enum(retrievalModes);
export type RetrievalMode = z.infer<typeof RetrievalModeSchema>;

/**
 * The search service's retrievers, one per read model (`search.lexical`, `search.vector`);
 * each is a projection of the log with its own checkpoint.
 */
export const retrieverNames = ["lexical", "vector"] as const;
export const RetrieverNameSchema = z.enum(retrieverNames);
export type RetrieverName = z.infer<typeof RetrieverNameSchema>;

/** Upper bound of a read-your-writes wait; a request may ask for less. */
export const maxWaitTimeoutMs = 30_000;
const WaitTimeoutSchema = z.number().int().min(0).max(maxWaitTimeoutMs);

/**
 * Narrowing filters. Visibility (tenant, private memories of other agents) comes from the
 * principal and cannot be widened here.
 *
 * - `status`: default `active` for tiers memory and handoff, `pending` for proposals.
 * - `tags`: a memory must carry every tag listed; `anyTags`: at least one of them.
 * - `agent`: the writing agent. `scope`: narrows to these scopes (of those visible).
 * - `createdFrom`/`createdTo`, `updatedFrom`/`updatedTo`: inclusive bounds.
 * - `includeExpired`: also memories whose `invalidAt` has passed.
 */
export const SearchFiltersSchema = z
  .object({
    tier: TierSchema.default("memory"),
    status: z.array(StatusSchema).min(1).optional(),
    kind: z.array(KindSchema).min(1).optional(),
    tags: z.array(z.string().min(1)).optional(),
    anyTags: z.array(z.string().min(1)).min(1).optional(),
    scope: z.array(ScopeSchema).min(1).optional(),
    project: z.string().min(1).optional(),
    agent: z.string().min(1).optional(),
    createdFrom: TimestampSchema.optional(),
    createdTo: TimestampSchema.optional(),
    updatedFrom: TimestampSchema.optional(),
    updatedTo: TimestampSchema.optional(),
    includeExpired: z.boolean().default(false),
  })
  .strict();
export type SearchFilters = z.infer<typeof SearchFiltersSchema>;
export type SearchFiltersInput = z.input<typeof SearchFiltersSchema>;

/** `cairn.search.candidates`: visibility comes from the principal, never from filters. */
export const CandidatesRequestSchema = z
  .object({
    principal: PrincipalSchema,
    /** The text to search for; `*` (listAllQuery) lists what the filters allow, newest first. */
    query: z.string().min(1).max(4000),
    mode: RetrievalModeSchema.default("hybrid"),
    filters: SearchFiltersSchema.default({ tier: "memory", includeExpired: false }),
    candidateK: z.number().int().min(1).max(500).default(50),
    /**
     * Extra query terms (co-occurring entities, keys) added by the caller; they widen the
     * lexical query only. The tenant's synonym table is applied by search itself.
     */
    expansions: z.array(z.string().max(200)).max(50).default([]),
    /**
     * Whether the best candidates pass a share of their relevance to their neighbours in their
     * episode (the memory just before and after). On by default; off measures a retriever alone.
     */
    episodes: z.boolean().default(true),
    /**
     * What becomes of candidates below the tenant's relevance floor: left out (`drop`), or
     * kept and marked `belowFloor` (`mark`) for a caller that re-ranks them and keeps only those
     * that meet enough of what the question asks (the rule: memory-model's relevance-floor).
     */
    belowFloor: z.enum(["drop", "mark"]).default("drop"),
    /** Read-your-writes: answer once the projections the mode needs have applied this log position. */
    afterPosition: z.number().int().nonnegative().optional(),
    /** How long to wait for `afterPosition` before failing with `timeout` (default: the service's). */
    waitTimeoutMs: WaitTimeoutSchema.optional(),
    /**
     * The memories as they were at a log position or time: the candidates that existed then and
     * passed the filters then, each with its document of then. Found by today's index, so a
     * memory whose words changed since may be missed; the listing query `*` is exact.
     */
    asOf: AsOfSchema.optional(),
  })
  .strict();
export type CandidatesRequest = z.input<typeof CandidatesRequestSchema>;
export type ParsedCandidatesRequest = z.infer<typeof CandidatesRequestSchema>;

/** A retriever's view of a candidate: its 1-based rank and raw score (BM25, or cosine similarity). */
export const RetrieverHitSchema = z.object({ rank: z.number().int().positive(), score: z.number() });
export type RetrieverHit = z.infer<typeof RetrieverHitSchema>;

/**
 * A candidate as a recall ranks it: its id, each retriever's rank and score, and the fused
 * relevance — no document (a recall reads the documents of its final results only).
 */
export const CandidateScoresSchema = z.object({
  id: IdSchema,
  lexical: RetrieverHitSchema.nullable(),
  vector: RetrieverHitSchema.nullable(),
  /**
   * Fused relevance in [0, 1]: (1 − w)·BM25/best BM25 + w·cosine/best cosine over the
   * candidates, w the vector weight (the embedder's, or the tenant's).
   */
  fused: z.number(),
  /**
   * The idf-weighted share of the query's terms the memory holds, in [0, 1] (absent when no
   * text was scored, as in a vector-only search). The relevance floor is set on it.
   */
  coverage: z.number().min(0).max(1).optional(),
  /**
   * Relevance this memory received from a neighbour in its episode (the turn before or after
   * one that matched): from which memory, and how much of `fused` it is.
   */
  episode: z.object({ from: IdSchema, boost: z.number().nonnegative() }).optional(),
  /**
   * Holds too little of the query to pass the relevance floor by its words; present only when
   * the request asked to `mark` such candidates rather than leave them out.
   */
  belowFloor: z.literal(true).optional(),
});
export type CandidateScores = z.infer<typeof CandidateScoresSchema>;

/** A candidate with its document (`cairn.search.candidates`). */
export const CandidateSchema = CandidateScoresSchema.extend({ document: MemoryDocumentSchema });
export type Candidate = z.infer<typeof CandidateSchema>;

export const CandidatesReplySchema = z.object({
  /** Best first, by `fused`; ties by lexical rank, then id. */
  candidates: z.array(CandidateSchema),
  /** The lowest log position reached by the projections this query used. */
  position: z.number().int().nonnegative(),
  /** Per projection used: the log position it had applied when the query ran. */
  positions: z.object({
    lexical: z.number().int().nonnegative().optional(),
    vector: z.number().int().nonnegative().optional(),
  }),
  /** The embedding model the vector retriever used (`null` when it did not run). */
  embeddingModel: z.string().nullable(),
  /** Terms the tenant's synonym table added to the lexical query. */
  synonymsApplied: z.array(z.string()),
  /** The weight the vector part had in `fused` (0 without vectors, 1 without text). */
  vectorWeight: z.number().min(0).max(1).optional(),
  /** Candidates below the relevance floor: left out, or marked when the request asked so. */
  belowFloor: z.number().int().nonnegative().optional(),
  /**
   * Hybrid only: retrievers that could not run (their read model unreachable, or the vector
   * model being rebuilt); the candidates come from the others. A single-mode request fails
   * with `unavailable` instead.
   */
  unavailable: z.array(RetrieverNameSchema),
});
export type CandidatesReply = z.infer<typeof CandidatesReplySchema>;

/**
 * `cairn.search.candidate_ids`: the same query as `cairn.search.candidates`, answered with the
 * candidates' ids and scores only (a caller that re-ranks them itself reads the documents it
 * keeps with `cairn.search.documents`; a search's final results are `cairn.search.results`).
 * Not for reads as of a past point: their documents are folded from the log, so they come with
 * the candidates.
 */
export const CandidateIdsRequestSchema = CandidatesRequestSchema.omit({ asOf: true });
export type CandidateIdsRequest = z.input<typeof CandidateIdsRequestSchema>;

export const CandidateIdsReplySchema = CandidatesReplySchema.extend({
  /** Best first, by `fused`; ties by lexical rank, then id. */
  candidates: z.array(CandidateScoresSchema),
});
export type CandidateIdsReply = z.infer<typeof CandidateIdsReplySchema>;

/** At most this many documents in one `cairn.search.documents` request. */
export const maxDocumentsPerRequest = 200;

/**
 * `cairn.search.documents`: the current documents of memories by id, those the principal may
 * see, in the order asked (one it may not see, or that does not exist, is left out).
 */
export const DocumentsRequestSchema = z
  .object({
    principal: PrincipalSchema,
    ids: z.array(IdSchema).max(maxDocumentsPerRequest),
    afterPosition: z.number().int().nonnegative().optional(),
    waitTimeoutMs: WaitTimeoutSchema.optional(),
  })
  .strict();
export type DocumentsRequest = z.input<typeof DocumentsRequestSchema>;

export const DocumentsReplySchema = z.object({
  documents: z.array(MemoryDocumentSchema),
  /** The log position the lexical projection had applied when the read ran. */
  position: z.number().int().nonnegative(),
});
export type DocumentsReply = z.infer<typeof DocumentsReplySchema>;

/**
 * `cairn.search.count`: how many memories pass the filters among those the principal may see
 * (the open proposals and handoffs a context or a status reports), counted by the lexical
 * index without reading a document.
 */
export const CountRequestSchema = z
  .object({
    principal: PrincipalSchema,
    filters: SearchFiltersSchema,
    afterPosition: z.number().int().nonnegative().optional(),
    waitTimeoutMs: WaitTimeoutSchema.optional(),
  })
  .strict();
export type CountRequest = z.input<typeof CountRequestSchema>;

export const CountReplySchema = z.object({
  count: z.number().int().nonnegative(),
  /** The log position the lexical projection had applied when the count ran. */
  position: z.number().int().nonnegative(),
});
export type CountReply = z.infer<typeof CountReplySchema>;

/**
 * `cairn.search.get`: one document by id, or the active one holding a slot (the asker's own
 * agent-scoped slot first, then team, then global). `tier` defaults to any tier for an id and
 * `memory` for a slot. A memory the principal may not see answers `not_found`.
 */
export const GetMemoryRequestSchema = z
  .object({
    principal: PrincipalSchema,
    id: IdSchema.optional(),
    slot: z.string().min(1).optional(),
    tier: TierSchema.optional(),
    afterPosition: z.number().int().nonnegative().optional(),
    waitTimeoutMs: WaitTimeoutSchema.optional(),
    /** The memory as it was at a log position or time, folded from the log (`not_found` if it did not exist yet). */
    asOf: AsOfSchema.optional(),
  })
  .strict()
  .refine((r) => (r.id === undefined) !== (r.slot === undefined), "give exactly one of id or slot");
export type GetMemoryRequest = z.input<typeof GetMemoryRequestSchema>;

/** A linked memory as listed next to a document. */
export const LinkRefSchema = z.object({
  id: IdSchema,
  slot: z.string(),
  title: z.string(),
  tier: TierSchema,
  status: StatusSchema,
});
export type LinkRef = z.infer<typeof LinkRefSchema>;

export const GetMemoryReplySchema = z.object({
  /** `document.version` is the version token to pass as `expectedVersion` to an update. */
  document: MemoryDocumentSchema,
  /** Memories this one links to (visible ones only; unresolved links are left out). */
  links: z.array(LinkRefSchema),
  /** Visible memories whose links point at this one (by id or slot). */
  backlinks: z.array(LinkRefSchema),
  /** Its neighbours in its episode (visible ones): the memory just before and just after it. */
  neighbours: z.object({ previous: LinkRefSchema.nullable(), next: LinkRefSchema.nullable() }).optional(),
  /** The log position the lexical projection had applied when the read ran. */
  position: z.number().int().nonnegative(),
});
export type GetMemoryReply = z.infer<typeof GetMemoryReplySchema>;

/**
 * `cairn.search.status`: each read model's checkpoint. With `afterPosition`, answers once the
 * listed ones (default: both) have applied it, so a caller can wait for its write.
 */
export const SearchStatusRequestSchema = z
  .object({
    afterPosition: z.number().int().nonnegative().optional(),
    projections: z.array(RetrieverNameSchema).min(1).optional(),
    waitTimeoutMs: WaitTimeoutSchema.optional(),
  })
  .strict();
export type SearchStatusRequest = z.input<typeof SearchStatusRequestSchema>;

export const SearchStatusReplySchema = z.object({
  projections: z.array(ProjectionStatusSchema),
  /** The lowest position among the projections listed. */
  position: z.number().int().nonnegative(),
});
export type SearchStatusReply = z.infer<typeof SearchStatusReplySchema>;

export const searchSubjects = {
  candidates: "cairn.search.candidates",
  candidateIds: "cairn.search.candidate_ids",
  documents: "cairn.search.documents",
  results: "cairn.search.results",
  count: "cairn.search.count",
  get: "cairn.search.get",
  status: "cairn.search.status",
  history: "cairn.search.history",
  export: "cairn.search.export",
} as const;
