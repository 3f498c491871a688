// `cairn.search.results`: what a search or a context shows, in one request. Search finds the
// candidates, has ranking re-rank them (`cairn.ranking.rerank`), and answers with the
// documents of the top `limit` only: the candidate list goes from search to ranking and no
// further, and no document travels twice.
import { z } from "zod";
import { MemoryDocumentSchema } from "./memory.ts";
import { CandidateScoresSchema, CandidatesReplySchema, CandidatesRequestSchema } from "./queries.ts";
import { IntentMatchSchema, MemorySignalsSchema, RankingFactorsSchema } from "./ranking.ts";

/**
 * The query of `cairn.search.candidates` (as of a past point too: the documents are then
 * folded from the log), the number of results, and whether each comes with its factors.
 */
export const ResultsRequestSchema = CandidatesRequestSchema.extend({
  /** How many results, best first (the candidates re-ranked are `candidateK`). */
  limit: z.number().int().min(1).max(200).default(10),
  /** Each result with its ranking factors, the signals behind them and the question's intent. */
  explain: z.boolean().default(false),
}).strict();
export type ResultsRequest = z.input<typeof ResultsRequestSchema>;

export const FinalResultSchema = z.object({
  document: MemoryDocumentSchema,
  /** Ranking's score (search's fused relevance when results are in search order). */
  score: z.number(),
  /** What search found: each retriever's rank and score, the fused relevance, the episode share. */
  candidate: CandidateScoresSchema,
  /** With `explain`, when ranking answered. */
  factors: RankingFactorsSchema.nullable(),
  signals: MemorySignalsSchema.nullable(),
  intent: IntentMatchSchema.nullable(),
});
export type FinalResult = z.infer<typeof FinalResultSchema>;

export const ResultsReplySchema = CandidatesReplySchema.omit({ candidates: true }).extend({
  results: z.array(FinalResultSchema),
  /**
   * `ranked`, or `search_order` when no ranking service answered (or it reported its read
   * models unreachable): then what search marked below the relevance floor stays out.
   */
  ranking: z.enum(["ranked", "search_order"]),
});
export type ResultsReply = z.infer<typeof ResultsReplySchema>;
