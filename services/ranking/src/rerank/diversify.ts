// The diversity step (MMR, multiplicative): greedy selection where a candidate that is a
// near-duplicate of one already chosen loses score in proportion to how near it is.
import { jaccard } from "../text/analyze-text.ts";

/** Similarities up to this leave a candidate untouched; identical text keeps 10 % of its score. */
export const diversityThreshold = 0.5;
export const maxDuplicatePenalty = 0.9;

export function diversityFactor(maxSimilarity: number): number {
  if (maxSimilarity <= diversityThreshold) return 1;
  return 1 - (maxDuplicatePenalty * (maxSimilarity - diversityThreshold)) / (1 - diversityThreshold);
}

export type Diversifiable = { score: number; terms: Set<string> };

/** Order of `items` after MMR: indices, best first, with each one's diversity factor. */
export function diversify<T extends Diversifiable>(
  items: T[],
  k: number,
): { index: number; diversity: number }[] {
  const remaining = new Set(items.map((_, i) => i));
  const chosen: { index: number; diversity: number }[] = [];
  const maxSim = items.map(() => 0);
  while (chosen.length < k && remaining.size > 0) {
    let best: { index: number; value: number; diversity: number } | undefined;
    for (const i of remaining) {
      const diversity = diversityFactor(maxSim[i] ?? 0);
      const value = (items[i]?.score ?? 0) * diversity;
      if (!best || value > best.value || (value === best.value && i < best.index))
        best = { index: i, value, diversity };
    }
    if (!best) break;
    remaining.delete(best.index);
    chosen.push({ index: best.index, diversity: best.diversity });
    const picked = items[best.index]?.terms ?? new Set<string>();
    for (const i of remaining) {
      const sim = jaccard(picked, items[i]?.terms ?? new Set<string>());
      if (sim > (maxSim[i] ?? 0)) maxSim[i] = sim;
    }
  }
  return chosen;
}
