// The relevance a re-ranking score starts from: search's fused relevance (exact BM25 on the
// shared text analysis and the tenant's statistics, combined with vector similarity by the
// embedder's weight, plus what episode neighbours passed on), relative to the best candidate's
// so the best match starts at 1 and the factors decide among the good ones. The parts each
// retriever contributed are given for explanations, each relative to its best candidate's.
import type { RerankCandidate } from "@cairn/contracts";

export type RelevanceParts = { relevance: number; lexical: number; vector: number };

export function relevanceOf(candidates: readonly RerankCandidate[]): RelevanceParts[] {
  const best = (score: (c: RerankCandidate) => number) => Math.max(0, ...candidates.map(score));
  const maxFused = best((c) => c.fused);
  const maxLexical = best((c) => c.lexical?.score ?? 0);
  const maxVector = best((c) => c.vector?.score ?? 0);
  const share = (value: number, max: number) => (max > 0 ? Math.max(0, value) / max : 0);
  return candidates.map((c) => ({
    // Nothing scored (a listing): every candidate as relevant as the next.
    relevance: maxFused > 0 ? share(c.fused, maxFused) : 1,
    lexical: share(c.lexical?.score ?? 0, maxLexical),
    vector: share(c.vector?.score ?? 0, maxVector),
  }));
}
