// The relevance floor: a memory is returned because it answers the query, not to fill a list
// or a context budget. A candidate is kept when it holds at least `floor` of the query (the
// idf-weighted share of its terms), or when the embedder finds it very close whatever its
// words (a paraphrase, a misspelling), or when it is the episode neighbour of a kept memory.
// When no candidate holds any of the query's words (a query of typos), the embedder's close
// matches at half the closeness are what there is.
import type { CandidateScores } from "@cairn/contracts";

export type FloorOptions = { floor: number; closeSimilarity: number };

export function aboveFloor<C extends CandidateScores>(
  candidates: readonly C[],
  options: FloorOptions,
): { kept: C[]; dropped: number } {
  const scored = candidates.some((c) => c.coverage !== undefined);
  if (!scored) return { kept: [...candidates], dropped: 0 };
  const anyWord = candidates.some((c) => (c.coverage ?? 0) > 0);
  const close = anyWord ? options.closeSimilarity : options.closeSimilarity / 2;
  const kept = candidates.filter(
    (c) =>
      (c.coverage ?? 0) >= options.floor ||
      (c.vector !== null && c.vector.score >= close) ||
      c.episode !== undefined,
  );
  return { kept, dropped: candidates.length - kept.length };
}
