// Why a memory came back where it did, for people: what REST `explain=true` and the MCP
// `memory_search` tool's `explain` answer with next to each result.
import { z } from "zod";
import { IdSchema } from "./memory.ts";
import { RetrieverHitSchema } from "./queries.ts";
import { IntentMatchSchema, MemorySignalsSchema, RankingFactorsSchema } from "./ranking.ts";

export const SearchExplanationSchema = z.object({
  /** The final score: relevance times the ranking factors (search order: relevance alone). */
  score: z.number(),
  relevance: z.object({
    /** Fused relevance, 0..1 (see Candidate.fused), with the episode's share in it. */
    fused: z.number(),
    /** BM25 and its rank among the lexical matches; null when the words did not find it. */
    lexical: RetrieverHitSchema.nullable(),
    /** Cosine similarity and its rank among the vector matches; null when vectors did not find it. */
    vector: RetrieverHitSchema.nullable(),
    /** The idf-weighted share of the query's terms it holds (the relevance floor is set on it). */
    coverage: z.number().nullable(),
    /** The weight the vector part had in `fused`. */
    vectorWeight: z.number().nullable(),
    /**
     * True when it held too little of the query to pass the relevance floor by its words, and
     * came back because it meets what the question asks (see `intent`).
     */
    belowFloor: z.boolean().optional(),
  }),
  /** Relevance received from a neighbour in its episode: from which memory, and how much. */
  episode: z.object({ from: IdSchema, boost: z.number() }).nullable(),
  /** Terms the query was widened with (keys and co-occurring entities), and the tenant's synonyms applied. */
  expansions: z.array(z.string()),
  synonyms: z.array(z.string()),
  /** Each ranking factor (1 = no effect), and the signals behind them; null in search order. */
  factors: RankingFactorsSchema.nullable(),
  signals: MemorySignalsSchema.nullable(),
  /** What the question was understood to ask beyond its words, and what of it this memory meets; null in search order. */
  intent: IntentMatchSchema.nullable(),
});
export type SearchExplanation = z.infer<typeof SearchExplanationSchema>;
