// Dedup: near-duplicate active memories of one visibility domain are resolved by superseding
// the weaker one (fewer recalls, less useful feedback, shallower; on a tie the newer one goes).
// Near-duplicate: their normalised texts share most word shingles, or (with `useVectors`)
// the vector model puts them this close.
import type { MaintenanceAction, MemorySignals } from "@cairn/contracts";
import { sketchSimilarity } from "../text/text-features.ts";
import type { MemoryCard } from "../view/memory-card.ts";
import {
  domainOf,
  errorText,
  type Job,
  type JobResult,
  liveMemories,
  planThenApply,
  round,
} from "./job-context.ts";

export type DuplicatePair = { a: MemoryCard; b: MemoryCard; by: "text" | "vector"; similarity: number };

/** Pairs whose text sketches are at least `threshold` similar, via an index of shared shingles. */
export function textDuplicates(cards: readonly MemoryCard[], threshold: number): DuplicatePair[] {
  const byHash = new Map<number, MemoryCard[]>();
  for (const c of cards) for (const h of c.sketch) byHash.set(h, [...(byHash.get(h) ?? []), c]);
  const seen = new Set<string>();
  const out: DuplicatePair[] = [];
  for (const c of cards) {
    const partners = new Set<MemoryCard>();
    for (const h of c.sketch)
      for (const other of byHash.get(h) ?? []) if (other.id !== c.id) partners.add(other);
    for (const other of partners) {
      const key = c.id < other.id ? `${c.id}|${other.id}` : `${other.id}|${c.id}`;
      if (seen.has(key) || domainOf(c) !== domainOf(other)) continue;
      seen.add(key);
      const similarity = sketchSimilarity(c.sketch, other.sketch);
      if (similarity >= threshold) out.push({ a: c, b: other, by: "text", similarity });
    }
  }
  return out.sort((x, y) => y.similarity - x.similarity);
}

function strength(s: MemorySignals | undefined): [number, number, number] {
  return [s?.recalls ?? 0, (s?.useful ?? 0) - (s?.notUseful ?? 0), s?.depth ?? 0];
}

/** Which of two duplicates stays: more recalls, then more useful feedback, then deeper, then older. */
export function keepOf(
  a: MemoryCard,
  b: MemoryCard,
  signals: Map<string, MemorySignals>,
): { keep: MemoryCard; drop: MemoryCard; why: string } {
  const [sa, sb] = [strength(signals.get(a.id)), strength(signals.get(b.id))];
  const labels = ["recalls", "useful feedback", "depth"];
  for (let i = 0; i < 3; i += 1) {
    const x = sa[i] as number;
    const y = sb[i] as number;
    if (x !== y) {
      return x > y
        ? { keep: a, drop: b, why: `${labels[i]} ${round(x)} > ${round(y)}` }
        : { keep: b, drop: a, why: `${labels[i]} ${round(y)} > ${round(x)}` };
    }
  }
  const older = a.createdAt.localeCompare(b.createdAt) <= 0 ? a : b;
  return { keep: older, drop: older === a ? b : a, why: "equally used; the older one stays" };
}

export const dedup: Job<"dedup"> = async (ctx) => {
  const p = ctx.params;
  const live = liveMemories(ctx);
  const result: JobResult = { examined: live.length, actions: [], positions: [] };
  const pairs = textDuplicates(live, p.textSimilarity);
  if (p.useVectors && live.length > 1) {
    const known = new Set(pairs.map((x) => [x.a.id, x.b.id].sort().join("|")));
    const byId = new Map(live.map((c) => [c.id, c]));
    try {
      const texts = await ctx.loadTexts(live.map((c) => c.id));
      let done = 0;
      for (const card of live) {
        const text = texts.get(card.id);
        if (text) {
          for (const hit of await ctx.read.vectorNeighbours(`${text.title}\n${text.content}`, 5)) {
            const other = byId.get(hit.id);
            if (!other || other.id === card.id || hit.similarity < p.vectorSimilarity) continue;
            if (domainOf(other) !== domainOf(card)) continue;
            const key = [card.id, other.id].sort().join("|");
            if (known.has(key)) continue;
            known.add(key);
            pairs.push({ a: card, b: other, by: "vector", similarity: hit.similarity });
          }
        }
        done += 1;
        if (done % 50 === 0) ctx.progress("vector neighbours", done, live.length);
      }
    } catch (error) {
      ctx.logger.warn({ err: errorText(error) }, "vector neighbours unavailable; text similarity only");
    }
  }
  if (pairs.length === 0) return result;
  const signals = await ctx.read
    .signals([...new Set(pairs.flatMap((x) => [x.a.id, x.b.id]))], ctx.view.position)
    .catch(() => new Map<string, MemorySignals>());
  const resolved = new Set<string>();
  let index = 0;
  for (const pair of pairs) {
    if (result.actions.length >= p.maxPerRun) break;
    if (resolved.has(pair.a.id) || resolved.has(pair.b.id)) continue;
    const { keep, drop, why } = keepOf(pair.a, pair.b, signals);
    resolved.add(drop.id);
    resolved.add(keep.id);
    ctx.progress("resolving duplicates", index, pairs.length);
    const action: MaintenanceAction = {
      action: "supersede",
      ids: [drop.id],
      resultId: keep.id,
      reasons: [
        `${pair.by} similarity ${round(pair.similarity)} ≥ ${pair.by === "text" ? p.textSimilarity : p.vectorSimilarity}`,
        `kept ${keep.id}: ${why}`,
      ],
      detail: { by: pair.by, similarity: round(pair.similarity) },
      status: "planned",
      error: null,
    };
    const done = await planThenApply(
      ctx,
      action,
      "memory.resolve_conflict",
      {
        keepId: keep.id,
        otherId: drop.id,
        action: "supersede",
        reason: `near-duplicate of ${keep.id} (maintenance run ${ctx.runId})`,
      },
      `dedup:${index}`,
      result.positions,
    );
    // The command answers the superseded memory's id; the action names the one kept.
    result.actions.push({ ...done.action, resultId: keep.id });
    index += 1;
  }
  return result;
};
