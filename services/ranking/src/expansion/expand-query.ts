// Query expansion, pure over lookups: synonyms from the tenant's groups, and the entities
// that co-occur most with the entities of the query, so recall is associative without a
// language model ("Python" also reaches memories about "Django").
import type { Expansion } from "@cairn/contracts";
import { labelGrams, normalizeLabel } from "../text/analyze-text.ts";

export type EntityStats = {
  /** Live memories mentioning the entity. */
  count: number;
  label: string;
};

export type CooccurrenceLookups = {
  /** Stats of normalised entity labels (absent ones are unknown). */
  entities: (norms: string[]) => Promise<Map<string, EntityStats>>;
  /** The most frequent co-occurring entities of one entity: normalised label and count. */
  cooccurring: (norm: string, limit: number) => Promise<{ norm: string; count: number }[]>;
};

export type ExpansionSettings = {
  maxEntities: number;
  minCooccurrence: number;
  /** Entities in at least this many live memories are hubs: neither expanded from nor to. */
  hubCount: number;
};

/** Synonyms: every other member of a group one of whose members is in the query. */
export function synonymExpansions(query: string, groups: string[][]): Expansion[] {
  const grams = new Set(labelGrams(query));
  const out: Expansion[] = [];
  for (const group of groups) {
    const hit = group.find((member) => grams.has(normalizeLabel(member)));
    if (!hit) continue;
    for (const member of group) {
      if (member === hit || grams.has(normalizeLabel(member))) continue;
      out.push({ term: member, source: "synonym", from: hit, weight: 1 });
    }
  }
  return out;
}

/**
 * Co-occurrence: for each non-hub entity named in the query, the entities seen with it in
 * at least `minCooccurrence` memories, strongest association (cosine: c / √(nₐ·n_b)) first.
 */
export async function cooccurrenceExpansions(
  query: string,
  lookups: CooccurrenceLookups,
  settings: ExpansionSettings,
): Promise<Expansion[]> {
  if (settings.maxEntities === 0) return [];
  const grams = [...new Set(labelGrams(query))];
  const known = await lookups.entities(grams);
  // Prefer the longest mention: "new york" over "york".
  const inQuery = [...known.entries()]
    .filter(([, stats]) => stats.count > 0 && stats.count < settings.hubCount)
    .map(([norm]) => norm)
    .filter((norm, _, all) => !all.some((other) => other !== norm && ` ${other} `.includes(` ${norm} `)));
  const out: Expansion[] = [];
  const seen = new Set(grams);
  for (const norm of inQuery) {
    const from = known.get(norm) as EntityStats;
    const neighbours = (await lookups.cooccurring(norm, 50)).filter(
      (n) => n.count >= settings.minCooccurrence,
    );
    const stats = await lookups.entities(neighbours.map((n) => n.norm));
    const ranked = neighbours
      .map((n) => ({ ...n, stats: stats.get(n.norm) }))
      .filter((n): n is typeof n & { stats: EntityStats } => n.stats !== undefined && n.stats.count > 0)
      .filter((n) => n.stats.count < settings.hubCount && !seen.has(n.norm))
      .map((n) => ({ ...n, weight: n.count / Math.sqrt(from.count * n.stats.count) }))
      .sort((a, b) => b.weight - a.weight || a.norm.localeCompare(b.norm))
      .slice(0, settings.maxEntities);
    for (const n of ranked) {
      seen.add(n.norm);
      out.push({
        term: n.stats.label,
        source: "cooccurrence",
        from: from.label,
        weight: Math.min(1, n.weight),
      });
    }
  }
  return out;
}

/** The expansion terms for retrieval, each once, in order. */
export function expansionTerms(expansions: Expansion[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const e of expansions) {
    const norm = normalizeLabel(e.term);
    if (!norm || seen.has(norm)) continue;
    seen.add(norm);
    out.push(e.term);
  }
  return out.slice(0, 50);
}
