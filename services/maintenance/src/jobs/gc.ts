// Garbage collection: memories deleted at least `olderThanDays` ago are purged for good by
// crypto-shredding (ingest destroys each one's seal and records `memory.purged`).
//
// Irreversible, so it is previewed first: a dry run answers the exact set and ingest's token
// bound to it (ids and versions). Applying with that token purges that set or nothing: when
// the set changed since (a memory restored, another one became old enough), ingest refuses the
// token and the run fails without purging anything. Applying without a token previews and
// executes at once (what a scheduled GC with `apply` does).
import { CairnError, type MaintenanceAction } from "@cairn/contracts";
import type { MemoryCard } from "../view/memory-card.ts";
import { ageDays, errorText, type Job, type JobResult } from "./job-context.ts";

export function purgeable(cards: readonly MemoryCard[], olderThanDays: number, now: Date): MemoryCard[] {
  return cards
    .filter(
      (c) =>
        c.tier === "memory" &&
        c.status === "deleted" &&
        !c.purgedAt &&
        ageDays(c.statusChangedAt, now) >= olderThanDays,
    )
    .sort((a, b) => a.id.localeCompare(b.id));
}

export const gc: Job<"gc"> = async (ctx) => {
  const p = ctx.params;
  const deleted = ctx.view.cards().filter((c) => c.tier === "memory" && c.status === "deleted");
  const chosen = purgeable(deleted, p.olderThanDays, ctx.now).slice(0, p.maxPerRun);
  const result: JobResult = { examined: deleted.length, actions: [], positions: [], token: null };
  if (chosen.length === 0) {
    if (ctx.mode === "apply" && ctx.token) {
      // The token was for a set that is no longer there: nothing to purge is not success.
      throw new CairnError("token_invalid", "nothing is purgeable any more: the previewed set has changed", {
        hint: "run the GC dry run again, check the new set, and apply with its token",
      });
    }
    return result;
  }
  const payload = {
    items: chosen.map((c) => ({ id: c.id, expectedVersion: c.version })),
    reason: `retention: deleted at least ${p.olderThanDays} days ago`,
    runId: ctx.runId,
  };
  const actions: MaintenanceAction[] = chosen.map((c) => ({
    action: "purge",
    ids: [c.id],
    resultId: null,
    reasons: [`deleted ${Math.floor(ageDays(c.statusChangedAt, ctx.now))} days ago ≥ ${p.olderThanDays}`],
    detail: { version: c.version },
    status: "planned",
    error: null,
  }));
  const finish = (status: MaintenanceAction["status"], error: string | null) => {
    result.actions = actions.map((a) => ({ ...a, status, error }));
    return result;
  };
  if (ctx.mode === "dry_run") {
    const plan = await ctx.ingest.plan("memory.purge", payload);
    result.token = { token: plan.token, expiresAt: plan.expiresAt };
    return finish("planned", null);
  }
  try {
    const token = ctx.token ?? (await ctx.ingest.plan("memory.purge", payload)).token;
    ctx.progress("purging", 0, chosen.length);
    const written = await ctx.ingest.execute("memory.purge", payload, token, `${ctx.runId}:purge`);
    result.positions.push(written.position);
    ctx.progress("purged", chosen.length, chosen.length);
    return finish("applied", null);
  } catch (error) {
    // A refused token fails the whole run: the operator must preview again and decide again.
    if (ctx.token) throw error;
    return finish("failed", errorText(error));
  }
};
