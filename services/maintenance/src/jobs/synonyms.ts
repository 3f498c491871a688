// Synonym discovery: pairs of words that occur in the same memories far more often than not
// (Jaccard co-occurrence over the tenant's active memories, as in the seeds: each word in at
// least `minFrequency` memories, together in at least `minCooccurrence`, Jaccard at least
// `threshold`) join the tenant's synonym table, which search applies to queries.
import { limits } from "@cairn/contracts";
import { cardWords, type MemoryCard } from "../view/memory-card.ts";
import { type Job, type JobResult, liveMemories, round } from "./job-context.ts";

export type SynonymPair = { a: string; b: string; jaccard: number; together: number };

/** Word pairs of high Jaccard co-occurrence; the most frequent 500 words are considered. */
export function discoverSynonyms(
  cards: readonly MemoryCard[],
  params: { minFrequency: number; threshold: number; minCooccurrence: number },
): SynonymPair[] {
  const docs = cards.map((c) => new Set(cardWords(c)));
  const frequency = new Map<string, number>();
  for (const d of docs) for (const w of d) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  const frequent = [...frequency]
    .filter(([w, n]) => n >= params.minFrequency && w.length <= limits.tagMaxChars)
    .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
    .slice(0, 500)
    .map(([w]) => w);
  const keep = new Set(frequent);
  const together = new Map<string, number>();
  for (const d of docs) {
    const present = [...d].filter((w) => keep.has(w)).sort();
    for (let i = 0; i < present.length; i += 1) {
      for (let j = i + 1; j < present.length; j += 1) {
        const key = `${present[i]}\u0000${present[j]}`;
        together.set(key, (together.get(key) ?? 0) + 1);
      }
    }
  }
  const out: SynonymPair[] = [];
  for (const [key, n] of together) {
    if (n < params.minCooccurrence) continue;
    const [a, b] = key.split("\u0000") as [string, string];
    const j = n / ((frequency.get(a) ?? 0) + (frequency.get(b) ?? 0) - n);
    if (j >= params.threshold) out.push({ a, b, jaccard: j, together: n });
  }
  return out.sort((x, y) => y.jaccard - x.jaccard || x.a.localeCompare(y.a) || x.b.localeCompare(y.b));
}

export const synonyms: Job<"synonyms"> = async (ctx) => {
  const p = ctx.params;
  const live = liveMemories(ctx);
  const result: JobResult = { examined: live.length, actions: [], positions: [] };
  const existing = ctx.view.synonyms();
  const grouped = (a: string, b: string) => existing.some((g) => g.includes(a) && g.includes(b));
  const found = discoverSynonyms(live, p)
    .filter((x) => !grouped(x.a, x.b))
    .slice(0, Math.max(0, Math.min(p.maxNewGroups, 1000 - existing.length)));
  if (found.length === 0) return result;
  result.actions = found.map((x) => ({
    action: "add_synonyms" as const,
    ids: [],
    resultId: null,
    reasons: [
      `Jaccard co-occurrence ${round(x.jaccard)} ≥ ${p.threshold}`,
      `together in ${x.together} memories ≥ ${p.minCooccurrence}`,
    ],
    detail: { terms: [x.a, x.b] },
    status: ctx.mode === "apply" ? ("applied" as const) : ("planned" as const),
    error: null,
  }));
  // Adding synonyms is one step (it only widens queries, and is undone by editing the table).
  if (ctx.mode === "apply") {
    const table = [...existing, ...found.map((x) => [x.a, x.b])];
    try {
      const written = await ctx.ingest.send(
        "tenant.change_settings",
        { settings: { synonyms: table } },
        `${ctx.runId}:synonyms`,
      );
      result.positions.push(written.position);
    } catch (error) {
      const message = (error as Error).message;
      result.actions = result.actions.map((a) => ({ ...a, status: "failed", error: message }));
    }
  }
  return result;
};
