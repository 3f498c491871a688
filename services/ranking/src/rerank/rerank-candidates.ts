// Re-ranking, pure: candidates and their signals in, the top k with a score that is the
// product of named factors out.
import type {
  Candidate,
  MemorySignals,
  RankedResult,
  RankingFactors,
  RankingWeights,
} from "@cairn/contracts";
import { topicTerms } from "../text/analyze-text.ts";
import { diversify } from "./diversify.ts";
import {
  ageInDays,
  boostFactor,
  decayFactor,
  decayWeightOf,
  feedbackFactor,
  sentimentFactor,
} from "./ranking-factors.ts";

export type CandidateSignals = Omit<MemorySignals, "id">;

export const noSignals: CandidateSignals = {
  useful: 0,
  notUseful: 0,
  recalls: 0,
  lastRecalledAt: null,
  depth: 0,
  attention: 0,
  hotTopic: 0,
};

export type RerankInput = {
  candidates: Candidate[];
  signals: Map<string, CandidateSignals>;
  weights: RankingWeights & { decay?: number | undefined };
  now: Date;
  k: number;
  explain: boolean;
};

/** Retrieval relevance: the fused score relative to the best candidate's (1 for the best). */
export function relevanceOf(candidates: Candidate[]): number[] {
  const best = Math.max(0, ...candidates.map((c) => c.fused));
  return candidates.map((c) => (best > 0 ? Math.max(0, c.fused) / best : 1));
}

/**
 * Age counts from the memory's last change or its last deliberate read, whichever is later:
 * a memory that is used does not fade.
 */
export function freshnessReference(candidate: Candidate, signals: CandidateSignals): string {
  const updated = candidate.document.updatedAt;
  const recalled = signals.lastRecalledAt;
  return recalled && Date.parse(recalled) > Date.parse(updated) ? recalled : updated;
}

export function factorsOf(
  candidate: Candidate,
  relevance: number,
  signals: CandidateSignals,
  weights: RerankInput["weights"],
  now: Date,
): Omit<RankingFactors, "diversity"> {
  return {
    relevance,
    decay: decayFactor(
      ageInDays(freshnessReference(candidate, signals), now),
      weights.halfLifeDays,
      signals.depth,
      decayWeightOf(weights),
    ),
    sentiment: sentimentFactor(candidate.document.sentiment, weights.sentiment),
    feedback: feedbackFactor(signals.useful, signals.notUseful, weights.feedback),
    hotTopic: boostFactor(signals.hotTopic, weights.hotTopic),
    attention: boostFactor(signals.attention, weights.attention),
    depth: boostFactor(signals.depth, weights.depth),
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
    factors.depth
  );
}

export function rerankCandidates(input: RerankInput): RankedResult[] {
  const relevance = relevanceOf(input.candidates);
  const scored = input.candidates.map((candidate, i) => {
    const signals = input.signals.get(candidate.id) ?? noSignals;
    const factors = factorsOf(candidate, relevance[i] ?? 0, signals, input.weights, input.now);
    return {
      candidate,
      signals,
      factors,
      score: product(factors),
      terms: new Set(topicTerms(`${candidate.document.title}\n${candidate.document.content}`)),
    };
  });
  return diversify(scored, input.k).map(({ index, diversity }) => {
    const item = scored[index] as (typeof scored)[number];
    const result: RankedResult = { ...item.candidate, score: item.score * diversity };
    if (input.explain) {
      result.factors = { ...item.factors, diversity };
      result.signals = { id: item.candidate.id, ...item.signals };
    }
    return result;
  });
}
