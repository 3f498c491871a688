// One line a model (or a person reading a transcript) can take in at a glance: the score as
// relevance times the factors that moved it, where the relevance came from, and what of the
// question's intent the memory meets.
import type { IntentMatch, SearchExplanation } from "@cairn/contracts";

const fixed = (n: number, digits = 2) => n.toFixed(digits);

/** "by or about Caroline, names a time, in June": what of the question's intent it meets. */
function intentPart(intent: IntentMatch | null): string | null {
  if (!intent) return null;
  const met: string[] = [];
  if (intent.names.length > 0) met.push(`by or about ${intent.names.join(", ")}`);
  if (intent.answers && intent.asks) met.push(`names a ${intent.asks}`);
  if (intent.inTime) met.push(`in ${intent.times.map((t) => t.text).join(", ")}`);
  return met.length > 0 ? `fits the question: ${met.join(", ")}` : null;
}

export function explanationLine(e: SearchExplanation): string {
  const parts: string[] = [];
  const r = e.relevance;
  if (r.lexical) parts.push(`words BM25 ${fixed(r.lexical.score)} (#${r.lexical.rank})`);
  if (r.vector) parts.push(`meaning cosine ${fixed(r.vector.score)} (#${r.vector.rank})`);
  if (r.coverage !== null)
    parts.push(
      `holds ${Math.round(r.coverage * 100)}% of the query${r.belowFloor ? " (below the relevance floor; kept for what it meets of the question)" : ""}`,
    );
  if (e.episode) parts.push(`+${fixed(e.episode.boost)} from episode neighbour ${e.episode.from}`);
  const intent = intentPart(e.intent);
  if (intent) parts.push(intent);
  const moved = Object.entries(e.factors ?? {})
    .filter(([name, value]) => name !== "relevance" && Math.abs(value - 1) >= 0.005)
    .map(([name, value]) => `${name} ×${fixed(value)}`);
  const expanded =
    e.expansions.length > 0 ? `; query widened with ${e.expansions.slice(0, 5).join(", ")}` : "";
  return `score ${fixed(e.score, 3)} = relevance ${fixed(r.fused)}${moved.length > 0 ? ` × ${moved.join(" × ")}` : ""} [${parts.join("; ")}]${expanded}`;
}
