// The relevance floor: a memory is returned because it answers the query, not to fill a list
// or a context budget. The rule, whole, in two steps:
//
// 1. Search, by the query's words: a candidate is above the floor when it holds at least
//    `floor` of the query (the idf-weighted share of its terms), or when the embedder finds it
//    very close whatever its words (a paraphrase, a misspelling), or when it is the episode
//    neighbour of a memory above it. When no candidate holds any of the query's words (a query
//    of typos), the embedder's close matches at half the closeness are what there is.
// 2. Ranking, by what the question asks beyond its words (query understanding: who it names,
//    the kind of answer, the time): a candidate below the floor is still returned when it meets
//    at least half of what the question asks ("what did Jon say in May?" and a line Jon said
//    in May that shares few of the question's words). Search leaves out what is below the
//    floor unless the caller re-ranks (`belowFloor: "mark"`): then it marks it, and ranking
//    keeps a marked candidate only when step 2 holds.
import type { CandidateScores } from "@cairn/contracts";

export type FloorOptions = { floor: number; closeSimilarity: number };

/** Step 1: the candidates above the floor, in their order; `below` the others, in theirs. */
export function splitAtFloor<C extends CandidateScores>(
  candidates: readonly C[],
  options: FloorOptions,
): { above: C[]; below: C[] } {
  const scored = candidates.some((c) => c.coverage !== undefined);
  if (!scored) return { above: [...candidates], below: [] };
  const anyWord = candidates.some((c) => (c.coverage ?? 0) > 0);
  const close = anyWord ? options.closeSimilarity : options.closeSimilarity / 2;
  const above: C[] = [];
  const below: C[] = [];
  for (const c of candidates) {
    const passes =
      (c.coverage ?? 0) >= options.floor ||
      (c.vector !== null && c.vector.score >= close) ||
      c.episode !== undefined;
    (passes ? above : below).push(c);
  }
  return { above, below };
}

/** The share of what a question asks beyond its words a memory below the floor must meet. */
export const floorQuestionFit = 0.5;

/**
 * Step 2: whether a re-ranked candidate may be returned: it is above the floor, or it meets
 * enough of what the question asks (`fit`, 0..1, from query understanding).
 */
export function passesFloor(
  candidate: Pick<CandidateScores, "belowFloor">,
  fit: number | undefined,
): boolean {
  return candidate.belowFloor !== true || (fit ?? 0) >= floorQuestionFit;
}
