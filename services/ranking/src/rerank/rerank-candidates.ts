// Re-ranking, pure: candidates, what ranking's read model holds of each memory and their
// signals in, the top k with a score that is the product of named factors out.
import {
  type IntentMatch,
  type MemorySignals,
  noMemorySignals,
  type RankedResult,
  type RankingFactors,
  type RankingWeights,
  type RerankCandidate,
} from "@cairn/contracts";
import { passesFloor } from "@cairn/memory-model";
import { diversify } from "./diversify.ts";
import {
  ageInDays,
  boostFactor,
  decayFactor,
  decayWeightOf,
  feedbackFactor,
  intentWeightOf,
  sentimentFactor,
} from "./ranking-factors.ts";
import { relevanceOf } from "./relevance.ts";

export type CandidateSignals = Omit<MemorySignals, "id">;

/** What the factors read of a memory: its terms (heat, diversity), its age and its sentiment. */
export type RankedMemory = { terms: readonly string[]; updatedAt: string; sentiment: number };

export type RerankInput = {
  candidates: RerankCandidate[];
  /**
   * Each memory as ranking's read model holds it (its card); one the read model does not hold
   * yet was just written: no terms, new, neutral.
   */
  memoryOf: (id: string) => RankedMemory | undefined;
  signals: Map<string, CandidateSignals>;
  weights: RankingWeights & { decay?: number | undefined };
  now: Date;
  k: number;
  explain: boolean;
  /** How each candidate fits what the question asks beyond its words (query-understanding/); none: fits nothing. */
  intentOf?: (id: string) => IntentMatch | undefined;
};

/**
 * Age counts from the memory's last change or its last deliberate read, whichever is later:
 * a memory that is used does not fade (being listed by a search does not count).
 */
export function freshnessReference(
  memory: Pick<RankedMemory, "updatedAt">,
  signals: CandidateSignals,
): string {
  const updated = memory.updatedAt;
  const recalled = signals.lastReadAt;
  return recalled && Date.parse(recalled) > Date.parse(updated) ? recalled : updated;
}

export function factorsOf(
  memory: Pick<RankedMemory, "updatedAt" | "sentiment">,
  relevance: number,
  signals: CandidateSignals,
  weights: RerankInput["weights"],
  now: Date,
  intentFit = 0,
): Omit<RankingFactors, "diversity"> {
  return {
    relevance,
    decay: decayFactor(
      ageInDays(freshnessReference(memory, signals), now),
      weights.halfLifeDays,
      signals.depth,
      decayWeightOf(weights),
    ),
    sentiment: sentimentFactor(memory.sentiment, weights.sentiment),
    feedback: feedbackFactor(signals.useful, signals.notUseful, weights.feedback),
    hotTopic: boostFactor(signals.hotTopic, weights.hotTopic),
    attention: boostFactor(signals.attention, weights.attention),
    depth: boostFactor(signals.depth, weights.depth),
    intent: boostFactor(intentFit, intentWeightOf(weights)),
  };
}

export function product(factors: Omit<RankingFactors, "diversity">): number {
  return (
    factors.relevance *
    factors.decay *
    factors.sentiment *
    factors.feedback *
    factors.hotTopic *
    factors.attention *
    factors.depth *
    factors.intent
  );
}

export function rerankCandidates(input: RerankInput): RankedResult[] {
  const unknown: RankedMemory = { terms: [], updatedAt: input.now.toISOString(), sentiment: 0 };
  const memories = input.candidates.map((c) => input.memoryOf(c.id) ?? unknown);
  const documentTerms = memories.map((m) => m.terms);
  const parts = relevanceOf(input.candidates);
  const scored = input.candidates.map((candidate, i) => {
    const signals = input.signals.get(candidate.id) ?? noMemorySignals;
    const relevance = parts[i] ?? { relevance: 0, lexical: 0, vector: 0 };
    const memory = memories[i] ?? unknown;
    const intent = input.intentOf?.(candidate.id);
    const factors = factorsOf(memory, relevance.relevance, signals, input.weights, input.now, intent?.fit);
    return {
      candidate,
      signals,
      factors,
      relevance,
      intent,
      score: product(factors),
      terms: documentTerms[i] ?? [],
    };
  });
  // The relevance floor's second step: a candidate search marked below it stays only when it
  // meets enough of what the question asks.
  const returnable = scored.filter((item) => passesFloor(item.candidate, item.intent?.fit));
  return diversify(returnable, input.k).map(({ index, diversity }) => {
    const item = returnable[index] as (typeof scored)[number];
    const result: RankedResult = { ...item.candidate, score: item.score * diversity };
    if (input.explain) {
      result.factors = { ...item.factors, diversity };
      result.signals = { id: item.candidate.id, ...item.signals };
      result.relevance = { lexical: item.relevance.lexical, vector: item.relevance.vector };
      if (item.intent) result.intent = item.intent;
    }
    return result;
  });
}
