// Repair: what the doctor finds in the read models, fixed from the log. Documents missing or
// behind (and purged memories still holding text) are re-projected by the search service as of
// each read model's checkpoint; documents the log cannot explain are reported, for a rebuild
// (`pnpm cairn rebuild`), since re-projecting cannot remove them. The dry run says which.
import type { MaintenanceAction } from "@cairn/contracts";
import { readModelDrift } from "../doctor/build-doctor-report.ts";
import { errorText, type Job, type JobResult } from "./job-context.ts";

export const repair: Job<"repair"> = async (ctx) => {
  const p = ctx.params;
  ctx.progress("comparing read models with the log", 0, null);
  const drift = await readModelDrift(
    { view: ctx.view, searchRepair: ctx.searchRepair },
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
  return result;
};
