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

export type Diversifiable = { score: number; terms: readonly string[] };

/** The most a candidate can be worth after the diversity step: its score, or a tenth of a negative one. */
function bound(score: number): number {
  return score >= 0 ? score : score * (1 - maxDuplicatePenalty);
}

/**
 * Order of `items` after MMR: indices, best first, with each one's diversity factor.
 *
 * Lazily greedy, with the same choices as comparing every candidate with every chosen one: a
 * candidate's diversity can only lower what it is worth, so candidates are visited by what
 * they could be worth at most, and each round stops at the first that could no longer beat
 * the best found. A candidate is compared only with the chosen ones it has not yet met, and
 * its terms become a set only when it is first compared (most of a hundred never are).
 */
export function diversify<T extends Diversifiable>(
  items: T[],
  k: number,
): { index: number; diversity: number }[] {
  const order = items
    .map((item, index) => ({ index, bound: bound(item.score) }))
    .sort((a, b) => b.bound - a.bound || a.index - b.index);
  const sets = new Map<number, Set<string>>();
  const termsOf = (i: number) => {
    let set = sets.get(i);
    if (set === undefined) {
      set = new Set(items[i]?.terms ?? []);
      sets.set(i, set);
    }
    return set;
  };
  const maxSim = items.map(() => 0);
  // How many of the chosen each candidate has been compared with.
  const met = items.map(() => 0);
  const taken = new Set<number>();
  const chosen: { index: number; diversity: number }[] = [];
  while (chosen.length < k && taken.size < items.length) {
    let best: { index: number; value: number; diversity: number } | undefined;
    for (const { index: i, bound: most } of order) {
      if (taken.has(i)) continue;
      if (best && most < best.value) break;
      for (; (met[i] as number) < chosen.length; met[i] = (met[i] as number) + 1) {
        const other = chosen[met[i] as number]?.index as number;
        const sim = jaccard(termsOf(other), termsOf(i));
        if (sim > (maxSim[i] as number)) maxSim[i] = sim;
      }
      const diversity = diversityFactor(maxSim[i] as number);
      const value = (items[i]?.score ?? 0) * diversity;
      if (!best || value > best.value || (value === best.value && i < best.index))
        best = { index: i, value, diversity };
    }
    if (!best) break;
    taken.add(best.index);
    chosen.push({ index: best.index, diversity: best.diversity });
  }
  return chosen;
}
