// Temporal contiguity: what is said just before or after a matching turn of a conversation
// often holds the answer ("What did she adopt?" — "A greyhound." is the next turn). Each of
// the best candidates with an episode passes a share (`spread`) of its relevance to its
// neighbours in that episode, the memory just before and just after it; a neighbour keeps
// the largest share it is given, on top of its own relevance, and one that was not a
// candidate joins with that share alone. What a principal may not see is never a neighbour.
import type { Candidate, MemoryDocument } from "@cairn/contracts";

export type EpisodeNeighbours = (
  documents: readonly MemoryDocument[],
) => Promise<Map<string, MemoryDocument[]>>;

export type SpreadOptions = {
  spread: number;
  /** How many of the best candidates pass relevance on. */
  sources: number;
  neighbours: EpisodeNeighbours;
};

export async function spreadEpisodes(
  candidates: readonly Candidate[],
  options: SpreadOptions,
): Promise<Candidate[]> {
  if (options.spread <= 0) return [...candidates];
  const sources = candidates.filter((c) => c.document.episode && c.fused > 0).slice(0, options.sources);
  if (sources.length === 0) return [...candidates];
  const neighbours = await options.neighbours(sources.map((c) => c.document));
  const byId = new Map(candidates.map((c) => [c.id, { ...c }]));
  const base = new Map(candidates.map((c) => [c.id, c.fused]));
  const given = new Map<string, { from: string; boost: number; document: MemoryDocument }>();
  for (const source of sources) {
    for (const document of neighbours.get(source.id) ?? []) {
      const boost = options.spread * source.fused;
      const best = given.get(document.id);
      if (!best || boost > best.boost) given.set(document.id, { from: source.id, boost, document });
    }
  }
  for (const [id, { from, boost, document }] of given) {
    const existing = byId.get(id);
    if (existing) {
      existing.fused = (base.get(id) ?? 0) + boost;
      existing.episode = { from, boost };
    } else {
      byId.set(id, { id, document, lexical: null, vector: null, fused: boost, episode: { from, boost } });
    }
  }
  return [...byId.values()].sort(
    (a, b) =>
      b.fused - a.fused ||
      (a.lexical?.rank ?? Number.POSITIVE_INFINITY) - (b.lexical?.rank ?? Number.POSITIVE_INFINITY) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
