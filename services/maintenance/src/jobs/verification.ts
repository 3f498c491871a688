// Verification reminders: constraints, fixes and workflows that nobody has verified, or not
// within the review period, are reported (by id, kind and age), never changed.
import { ageDays, type Job, type JobResult } from "./job-context.ts";

export const verification: Job<"verification"> = async (ctx) => {
  const p = ctx.params;
  const cutoff = ctx.now.getTime() - p.reviewDays * 86_400_000;
  const active = ctx.view
    .cards()
    .filter((c) => c.tier === "memory" && c.status === "active" && p.kinds.includes(c.kind));
  const due = active.filter((c) => c.verifiedAt === null || Date.parse(c.verifiedAt) < cutoff);
  const result: JobResult = { examined: active.length, actions: [], positions: [] };
  result.actions = due.map((c) => ({
    action: "remind_verification" as const,
    ids: [c.id],
    resultId: null,
    reasons: [
      c.verifiedAt === null
        ? `never verified (written ${Math.floor(ageDays(c.createdAt, ctx.now))} days ago)`
        : `last verified ${Math.floor(ageDays(c.verifiedAt, ctx.now))} days ago > ${p.reviewDays}`,
    ],
    detail: { kind: c.kind, slot: c.slot, agent: c.agent },
    // A reminder changes nothing: the run record is the reminder.
    status: ctx.mode === "apply" ? ("applied" as const) : ("planned" as const),
    error: null,
  }));
  return result;
};
