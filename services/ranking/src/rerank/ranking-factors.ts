// The factors of a re-ranking score, each a pure function of a signal and its tenant
// weight. A weight w ≥ 1 bounds its factor to [1/w, w] (or [1, w] for boosts), and w = 1
// makes the factor exactly 1: the factor is off.
import { defaultRankingWeights, type RankingWeights } from "@cairn/contracts";

const dayMs = 86_400_000;

/** Deep memories decay this many times slower at depth 1. */
export const depthSlowsDecay = 3;

/** Default bound of the decay factor: a memory never loses more than this factor to age. */
export const defaultDecayWeight = 2;

/**
 * Time decay: exponential with the tenant's half-life (slower for deep memories), bounded so
 * that age can cost at most a factor `weight` (1 = no decay): a very old memory that is the
 * only good answer is still found.
 */
export function decayFactor(ageDays: number, halfLifeDays: number, depth: number, weight: number): number {
  if (weight <= 1) return 1;
  const halfLife = halfLifeDays * (1 + depthSlowsDecay * clamp01(depth));
  const fresh = 0.5 ** (Math.max(0, ageDays) / halfLife);
  return weight ** -(1 - fresh);
}

/** Emotional memories, positive or negative, are boosted with their intensity. */
export function sentimentFactor(sentiment: number, weight: number): number {
  return 1 + (weight - 1) * Math.min(1, Math.abs(sentiment));
}

/**
 * Feedback: w^(net share), where the net share (useful - not useful) / (votes + 1) is in
 * (-1, 1): one useful vote gives √w, many give almost w; not useful penalises alike.
 */
export function feedbackFactor(useful: number, notUseful: number, weight: number): number {
  return weight ** ((useful - notUseful) / (useful + notUseful + 1));
}

/** A boost of up to `weight` for a signal in 0..1 (hot topic, attention, depth). */
export function boostFactor(signal: number, weight: number): number {
  return 1 + (weight - 1) * clamp01(signal);
}

export function clamp01(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}

export function ageInDays(from: string, now: Date): number {
  return Math.max(0, (now.getTime() - Date.parse(from)) / dayMs);
}

export function decayWeightOf(weights: RankingWeights & { decay?: number | undefined }): number {
  return weights.decay ?? defaultDecayWeight;
}

/** The intent weight of tenants that set their weights before it existed. */
export function intentWeightOf(weights: RankingWeights): number {
  return weights.intent ?? defaultRankingWeights.intent ?? 1;
}

/**
 * Normalised heat of a memory from the normalised heat (0..1) of its terms: the mean of its
 * `top` hottest terms, so one hot word in a long memory counts less than several.
 */
export function termHeat(values: readonly number[], top = 3): number {
  if (values.length === 0) return 0;
  // The `top` highest in one pass (a memory has up to 64 terms, a rerank a hundred memories),
  // highest first, summed in that order.
  const highest: number[] = [];
  for (const v of values) {
    if (highest.length === top && !(v > (highest[top - 1] as number))) continue;
    let i = Math.min(highest.length, top - 1);
    while (i > 0 && v > (highest[i - 1] as number)) {
      highest[i] = highest[i - 1] as number;
      i -= 1;
    }
    highest[i] = v;
  }
  let sum = 0;
  for (const v of highest) sum += v;
  return sum / top;
}
