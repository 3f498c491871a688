// Repair: what the doctor finds in the read models, fixed from the log. Documents missing or
// behind (and purged memories still holding text) are re-projected by the search service as of
// each read model's checkpoint; documents the log cannot explain are reported, for a rebuild
// (`pnpm cairn rebuild`), since re-projecting cannot remove them. Events a projection set aside
// as dead letters are retried by the service that runs it. The dry run says which.
import { call } from "@cairn/bus";
import { type MaintenanceAction, projectionRpcs } from "@cairn/contracts";
import { readModelDrift } from "../doctor/check-drift.ts";
import { errorText, type Job, type JobResult } from "./job-context.ts";

export const repair: Job<"repair"> = async (ctx) => {
  const p = ctx.params;
  ctx.progress("comparing read models with the log", 0, null);
  const drift = await readModelDrift(
    { view: ctx.fullView, searchRepair: ctx.searchRepair },
    { tenant: ctx.tenant, full: p.full, sampleSize: p.sampleSize },
  );
  const result: JobResult = {
    examined: drift.reduce((n, d) => n + d.checked, 0),
    actions: [],
    positions: [],
  };
  for (const d of drift) {
    const broken = [...new Set([...d.missingIds, ...d.staleIds, ...d.notPurgedIds])];
    if (broken.length > 0) {
      const action: MaintenanceAction = {
        action: "reproject",
        ids: broken.slice(0, 500),
        resultId: null,
        reasons: [
          ...(d.missing > 0 ? [`${d.missing} missing from ${d.readModel}`] : []),
          ...(d.stale > 0 ? [`${d.stale} behind the log in ${d.readModel}`] : []),
          ...(d.notPurged > 0 ? [`${d.notPurged} purged but holding text in ${d.readModel}`] : []),
        ],
        detail: { readModel: d.readModel, position: d.position },
        status: "planned",
        error: null,
      };
      if (ctx.mode === "apply") {
        try {
          const reply = await ctx.searchRepair.reproject(action.ids, [d.readModel]);
          const done = reply.projections.flatMap((x) => x.reprojected.map((r) => r.id));
          action.status = "applied";
          action.detail = { ...action.detail, reprojected: done.length };
        } catch (error) {
          action.status = "failed";
          action.error = errorText(error);
        }
      }
      result.actions.push(action);
    }
    if (d.unexplained > 0) {
      result.actions.push({
        action: "reproject",
        ids: d.ids.unexplained,
        resultId: null,
        reasons: [`${d.unexplained} document(s) in ${d.readModel} that the log does not explain`],
        detail: { readModel: d.readModel, fix: `pnpm cairn rebuild --projection ${d.readModel}` },
        status: "skipped",
        error: "only a rebuild of the projection removes documents the log does not explain",
      });
    }
  }
  await retryDeadLetters(ctx, result);
  return result;
};

const projectionServices = ["search", "ranking", "maintenance"] as const;

/** The tenant's open dead letters of every projection, retried by the service that runs it. */
async function retryDeadLetters(ctx: Parameters<Job<"repair">>[0], result: JobResult): Promise<void> {
  ctx.progress("retrying dead letters", 0, null);
  for (const service of projectionServices) {
    const rpcs = projectionRpcs(service);
    let letters: {
      id: number;
      projection: string;
      tenant: string | null;
      streamId: string | null;
      reason: string;
    }[];
    try {
      letters = (
        await call(ctx.nc, rpcs.deadLetters, { status: "open", limit: 1000 }, { timeoutMs: ctx.timeoutMs })
      ).deadLetters;
    } catch (error) {
      result.actions.push(deadLetterAction(service, [], "failed", errorText(error)));
      continue;
    }
    const mine = letters.filter((l) => l.tenant === ctx.tenant);
    if (mine.length === 0) continue;
    const action = deadLetterAction(service, mine, "planned", null);
    if (ctx.mode === "apply") {
      try {
        const reply = await call(
          ctx.nc,
          rpcs.retryDeadLetters,
          { ids: mine.map((l) => l.id) },
          { timeoutMs: ctx.timeoutMs },
        );
        const failed = reply.retried.filter((r) => r.outcome === "failed");
        action.status = failed.length === 0 ? "applied" : "failed";
        action.error = failed.length === 0 ? null : `${failed.length} still fail: ${failed[0]?.error ?? ""}`;
        action.detail = { ...action.detail, resolved: reply.retried.length - failed.length };
      } catch (error) {
        action.status = "failed";
        action.error = errorText(error);
      }
    }
    result.actions.push(action);
  }
}

function deadLetterAction(
  service: string,
  letters: { id: number; projection: string; streamId: string | null; reason: string }[],
  status: MaintenanceAction["status"],
  error: string | null,
): MaintenanceAction {
  const memoryIds = letters.flatMap((l) => {
    const id = l.streamId?.startsWith("memory-") ? l.streamId.slice("memory-".length) : undefined;
    return id ? [id] : [];
  });
  return {
    action: "retry_dead_letters",
    ids: [...new Set(memoryIds)].slice(0, 500),
    resultId: null,
    reasons: [...new Set(letters.map((l) => `${l.projection}: ${l.reason}`))],
    detail: { service, deadLetters: letters.map((l) => String(l.id)) },
    status,
    error,
  };
}
