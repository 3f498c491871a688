// The shapes the gateway answers with from the ranking service's replies (contracts/src/ranking.ts). Every caller falls back when no ranking service answers
// (`unavailable`): no expansion, keys derived from search candidates (the re-rank's search order is search's, in `cairn.search.results`).
import type {
  CandidateScores,
  ExpandReply,
  IntentMatch,
  MemorySignals,
  RankingFactors,
  SkipReason,
} from "@cairn/contracts";

export type { SkipReason };

export type ExpandReplyFields = Pick<ExpandReply, "skip" | "terms">;

export type RankedCandidate = {
  candidate: CandidateScores;
  score: number;
  /** Factor by factor and the signals behind them, when asked for and ranking gave them. */
  factors: RankingFactors | null;
  signals: MemorySignals | null;
  /** What the question asks beyond its words and what of it the memory meets, when asked for. */
  intent: IntentMatch | null;
};

/** A key of the associative graph; `id` and `type` are null when derived from search. */
export type RecalledKey = {
  id: string | null;
  label: string;
  type: string | null;
  score: number;
  memoryCount: number;
};

export type KeyWithMemories = {
  key: { id: string | null; label: string; type: string | null };
  memories: { id: string; slot: string; title: string; weight: number | null }[];
};
