// One line a model (or a person reading a transcript) can take in at a glance: the score as
// relevance times the factors that moved it, and where the relevance came from.
import type { SearchExplanation } from "@cairn/contracts";

const fixed = (n: number, digits = 2) => n.toFixed(digits);

export function explanationLine(e: SearchExplanation): string {
  const parts: string[] = [];
  const r = e.relevance;
  if (r.lexical) parts.push(`words BM25 ${fixed(r.lexical.score)} (#${r.lexical.rank})`);
  if (r.vector) parts.push(`meaning cosine ${fixed(r.vector.score)} (#${r.vector.rank})`);
  if (r.coverage !== null) parts.push(`holds ${Math.round(r.coverage * 100)}% of the query`);
  if (e.episode) parts.push(`+${fixed(e.episode.boost)} from episode neighbour ${e.episode.from}`);
  const moved = Object.entries(e.factors ?? {})
    .filter(([name, value]) => name !== "relevance" && Math.abs(value - 1) >= 0.005)
    .map(([name, value]) => `${name} ×${fixed(value)}`);
  const expanded =
    e.expansions.length > 0 ? `; query widened with ${e.expansions.slice(0, 5).join(", ")}` : "";
  return `score ${fixed(e.score, 3)} = relevance ${fixed(r.fused)}${moved.length > 0 ? ` × ${moved.join(" × ")}` : ""} [${parts.join("; ")}]${expanded}`;
}
