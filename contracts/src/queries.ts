import { z } from "zod";
import {
  IdSchema,
  KindSchema,
  MemoryDocumentSchema,
  StatusSchema,
  TierSchema,
  TimestampSchema,
} from "./memory.ts";
import { PrincipalSchema } from "./principal.ts";

export const retrievalModes = ["lexical", "vector", "hybrid"] as const;
export const RetrievalModeSchema = z.enum(retrievalModes);
export type RetrievalMode = z.infer<typeof RetrievalModeSchema>;

export const SearchFiltersSchema = z
  .object({
    tier: TierSchema.default("memory"),
    status: z.array(StatusSchema).optional(),
    kind: z.array(KindSchema).optional(),
    tags: z.array(z.string()).optional(),
    project: z.string().optional(),
    agent: z.string().optional(),
    createdFrom: TimestampSchema.optional(),
    createdTo: TimestampSchema.optional(),
    includeExpired: z.boolean().default(false),
  })
  .strict();
export type SearchFilters = z.infer<typeof SearchFiltersSchema>;

/** `cairn.search.candidates`: visibility comes from the principal, never from filters. */
export const CandidatesRequestSchema = z
  .object({
    principal: PrincipalSchema,
    query: z.string().min(1).max(4000),
    mode: RetrievalModeSchema.default("hybrid"),
    filters: SearchFiltersSchema.default({ tier: "memory", includeExpired: false }),
    candidateK: z.number().int().min(1).max(500).default(50),
    /** Extra query terms (synonyms, co-occurring entities) added by the caller. */
    expansions: z.array(z.string()).max(50).default([]),
    /** Read-your-writes: answer once the projections have applied this log position. */
    afterPosition: z.number().int().nonnegative().optional(),
  })
  .strict();
export type CandidatesRequest = z.input<typeof CandidatesRequestSchema>;

export const RetrieverHitSchema = z.object({ rank: z.number().int().positive(), score: z.number() });

export const CandidateSchema = z.object({
  id: IdSchema,
  document: MemoryDocumentSchema,
  lexical: RetrieverHitSchema.nullable(),
  vector: RetrieverHitSchema.nullable(),
  /** Reciprocal Rank Fusion score (k = 60) over the retrievers that found it. */
  fused: z.number(),
});
export type Candidate = z.infer<typeof CandidateSchema>;

export const CandidatesReplySchema = z.object({
  candidates: z.array(CandidateSchema),
  /** The log position the projections had reached when the query ran. */
  position: z.number().int().nonnegative(),
});
export type CandidatesReply = z.infer<typeof CandidatesReplySchema>;

/** `cairn.search.get`: one document by id, or the active one holding a slot. */
export const GetMemoryRequestSchema = z
  .object({
    principal: PrincipalSchema,
    id: IdSchema.optional(),
    slot: z.string().optional(),
    tier: TierSchema.optional(),
    afterPosition: z.number().int().nonnegative().optional(),
  })
  .strict()
  .refine((r) => (r.id === undefined) !== (r.slot === undefined), "give exactly one of id or slot");

export const LinkRefSchema = z.object({ id: IdSchema, slot: z.string(), title: z.string() });
export const GetMemoryReplySchema = z.object({
  document: MemoryDocumentSchema,
  links: z.array(LinkRefSchema),
  backlinks: z.array(LinkRefSchema),
});
export type GetMemoryReply = z.infer<typeof GetMemoryReplySchema>;

export const searchSubjects = {
  candidates: "cairn.search.candidates",
  get: "cairn.search.get",
} as const;
