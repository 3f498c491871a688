// Temporal contiguity: what is said just before or after a matching turn of a conversation
// often holds the answer ("What did she adopt?" — "A greyhound." is the next turn). Each of
// the best candidates with an episode passes a share (`spread`) of its relevance to its
// neighbours in that episode, the memory just before and just after it; a neighbour keeps
// the largest share it is given, on top of its own relevance, and one that was not a
// candidate joins with that share alone. What a principal may not see is never a neighbour.
import type { CandidateScores } from "@cairn/contracts";
import type { EpisodePlace } from "../projections/lexical/lexical-index.ts";

/** For each memory at a place, the ids of its neighbours there (visible, passing the filters). */
export type EpisodeNeighbours = (
  memories: readonly { id: string; place: EpisodePlace }[],
) => Promise<Map<string, string[]>>;

export type SpreadOptions = {
  spread: number;
  /** How many of the best candidates pass relevance on. */
  sources: number;
  neighbours: EpisodeNeighbours;
};

export async function spreadEpisodes(
  candidates: readonly CandidateScores[],
  placeOf: (id: string) => EpisodePlace | null,
  options: SpreadOptions,
): Promise<CandidateScores[]> {
  if (options.spread <= 0) return [...candidates];
  const sources = candidates
    .flatMap((c) => {
      const place = c.fused > 0 ? placeOf(c.id) : null;
      return place ? [{ candidate: c, place }] : [];
    })
    .slice(0, options.sources);
  if (sources.length === 0) return [...candidates];
  const neighbours = await options.neighbours(sources.map((s) => ({ id: s.candidate.id, place: s.place })));
  const byId = new Map(candidates.map((c) => [c.id, { ...c }]));
  const base = new Map(candidates.map((c) => [c.id, c.fused]));
  const given = new Map<string, { from: string; boost: number }>();
  for (const { candidate: source } of sources) {
    for (const id of neighbours.get(source.id) ?? []) {
      const boost = options.spread * source.fused;
      const best = given.get(id);
      if (!best || boost > best.boost) given.set(id, { from: source.id, boost });
    }
  }
  for (const [id, { from, boost }] of given) {
    const existing = byId.get(id);
    if (existing) {
      existing.fused = (base.get(id) ?? 0) + boost;
      existing.episode = { from, boost };
    } else {
      byId.set(id, { id, lexical: null, vector: null, fused: boost, episode: { from, boost } });
    }
  }
  return [...byId.values()].sort(
    (a, b) =>
      b.fused - a.fused ||
      (a.lexical?.rank ?? Number.POSITIVE_INFINITY) - (b.lexical?.rank ?? Number.POSITIVE_INFINITY) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
