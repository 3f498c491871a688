// The explanation of one result, for people: its relevance parts (BM25, cosine, how much of
// the query it holds, the vector weight), the episode neighbour it owes relevance to, the
// terms the query was widened with, each ranking factor with the signals behind it, and what
// the question was understood to ask beyond its words.
import type { CandidatesReply, SearchExplanation } from "@cairn/contracts";
import type { RankedCandidate } from "../backend/ranking-contract.ts";

export function explainResult(
  ranked: RankedCandidate,
  reply: Pick<CandidatesReply, "vectorWeight" | "synonymsApplied">,
  expansions: readonly string[],
): SearchExplanation {
  const { candidate } = ranked;
  return {
    score: ranked.score,
    relevance: {
      fused: candidate.fused,
      lexical: candidate.lexical,
      vector: candidate.vector,
      coverage: candidate.coverage ?? null,
      vectorWeight: reply.vectorWeight ?? null,
      ...(candidate.belowFloor ? { belowFloor: true } : {}),
    },
    episode: candidate.episode ?? null,
    expansions: [...expansions],
    synonyms: [...reply.synonymsApplied],
    factors: ranked.factors,
    signals: ranked.signals,
    intent: ranked.intent,
  };
}
