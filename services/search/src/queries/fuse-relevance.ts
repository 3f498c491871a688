// Hybrid fusion by scores, not ranks: each candidate's relevance is the convex combination of
// its lexical score (exact BM25) and its vector score (cosine similarity, negative as 0), each
// divided by the best of the candidates (Bruch et al., "An Analysis of Fusion Functions for
// Hybrid Retrieval", 2023). Ranks alone (Reciprocal Rank Fusion) would give a weak retriever
// the same say as a strong one and would flatten how much better the best match is.
//
// The vector part weighs `vectorWeight` (in [0, 1]), which follows how good the embedder is:
// little for the hashed local one, more for a trained model, or what the tenant set. A
// retriever that found nothing leaves the other alone, so fusion never costs what the other
// retriever had. A candidate only one retriever found gets the other's score when it can be
// computed here (its BM25 from its terms).
import type { CandidateScores } from "@cairn/contracts";

export type RankedHit = { id: string; score: number };

export type FusionOptions = {
  vectorWeight: number;
  /** The lexical score of a memory the lexical retriever did not return (0 when unknown). */
  lexicalScoreOf?: (id: string) => number;
};

export function fuseRelevance(
  lexical: readonly RankedHit[] | null,
  vector: readonly RankedHit[] | null,
  limit: number,
  options: FusionOptions,
): CandidateScores[] {
  const byId = new Map<string, CandidateScores>();
  const take = (hit: RankedHit) => {
    let candidate = byId.get(hit.id);
    if (!candidate) {
      candidate = { id: hit.id, lexical: null, vector: null, fused: 0 };
      byId.set(hit.id, candidate);
    }
    return candidate;
  };
  lexical?.forEach((hit, i) => {
    take(hit).lexical = { rank: i + 1, score: hit.score };
  });
  vector?.forEach((hit, i) => {
    take(hit).vector = { rank: i + 1, score: hit.score };
  });
  const candidates = [...byId.values()];
  const lexicalScore = (c: CandidateScores) =>
    c.lexical?.score ?? (lexical && options.lexicalScoreOf ? options.lexicalScoreOf(c.id) : 0);
  const lexicalScores = candidates.map(lexicalScore);
  const vectorScores = candidates.map((c) => Math.max(0, c.vector?.score ?? 0));
  const maxLexical = Math.max(0, ...lexicalScores);
  const maxVector = Math.max(0, ...vectorScores);
  const w = maxLexical === 0 ? 1 : maxVector === 0 ? 0 : Math.min(1, Math.max(0, options.vectorWeight));
  candidates.forEach((c, i) => {
    const lex = maxLexical > 0 ? (lexicalScores[i] as number) / maxLexical : 0;
    const vec = maxVector > 0 ? (vectorScores[i] as number) / maxVector : 0;
    c.fused = (1 - w) * lex + w * vec;
  });
  return candidates
    .sort(
      (a, b) =>
        b.fused - a.fused ||
        (a.lexical?.rank ?? Number.POSITIVE_INFINITY) - (b.lexical?.rank ?? Number.POSITIVE_INFINITY) ||
        (a.vector?.rank ?? Number.POSITIVE_INFINITY) - (b.vector?.rank ?? Number.POSITIVE_INFINITY) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .slice(0, limit);
}
