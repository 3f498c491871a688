import { type Candidate, type MemoryDocument, rrfK } from "@cairn/contracts";

export type RankedHit = { id: string; score: number; document: MemoryDocument };

/**
 * Reciprocal Rank Fusion: each retriever contributes 1 / (k + rank) for each memory it
 * found. Ties go to the better lexical rank, then the id, so the order is deterministic.
 */
export function fuseByReciprocalRank(
  lexical: readonly RankedHit[] | null,
  vector: readonly RankedHit[] | null,
  limit: number,
): Candidate[] {
  const byId = new Map<string, Candidate>();
  const take = (hit: RankedHit) => {
    let candidate = byId.get(hit.id);
    if (!candidate) {
      candidate = { id: hit.id, document: hit.document, lexical: null, vector: null, fused: 0 };
      byId.set(hit.id, candidate);
    } else if (hit.document.version > candidate.document.version) {
      // The two read models can be a moment apart; show the newer document.
      candidate.document = hit.document;
    }
    return candidate;
  };
  lexical?.forEach((hit, i) => {
    const c = take(hit);
    c.lexical = { rank: i + 1, score: hit.score };
    c.fused += 1 / (rrfK + i + 1);
  });
  vector?.forEach((hit, i) => {
    const c = take(hit);
    c.vector = { rank: i + 1, score: hit.score };
    c.fused += 1 / (rrfK + i + 1);
  });
  return [...byId.values()]
    .sort(
      (a, b) =>
        b.fused - a.fused ||
        (a.lexical?.rank ?? Number.POSITIVE_INFINITY) - (b.lexical?.rank ?? Number.POSITIVE_INFINITY) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )
    .slice(0, limit);
}
