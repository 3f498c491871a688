// The commands the maintenance service sends (admins may send them too): consolidating a
// group of memories into one, forgetting (archiving) with the reasons, purging deleted
// memories by destroying their seals, and recording a maintenance run. The first
// three are destructive and run in two steps, like delete and supersede.
import {
  CairnError,
  type MaintenanceCommand,
  type MaintenanceCommandName,
  type PlanResult,
  streamIdFor,
  type WriteResult,
} from "@cairn/contracts";

import { bodyFromInput } from "../domain/memory-body.ts";
import { decideMemory, type MemoryState } from "../domain/memory-stream.ts";
import type { CommandContext, PlannedAppend } from "./command-context.ts";
import { item, planOrVerify, recordNew, requireScope } from "./memory-commands.ts";
import { requireReviewer } from "./require-reviewer.ts";

type Existing = MemoryState & { exists: true };

export type MaintenanceHandlers = {
  [N in MaintenanceCommandName]: (
    ctx: CommandContext,
    command: MaintenanceCommand<N>,
  ) => Promise<WriteResult | PlanResult>;
};

function requireAdmin(ctx: CommandContext, what: string): void {
  if (ctx.principal.role === "admin") return;
  throw new CairnError("forbidden", `${what} needs an admin of the tenant`, {
    hint: "ask an admin to run it (for example with `pnpm cairn maintenance <job> --apply`)",
  });
}

function requireDistinct(ids: readonly string[], field: string): void {
  if (new Set(ids).size === ids.length) return;
  throw new CairnError("validation_failed", `${field} lists a memory more than once`, {
    hint: "list each memory once",
    details: { field },
  });
}

/** Loads each target the caller may change, at the version the caller saw. */
async function loadTargets(
  ctx: CommandContext,
  targets: readonly { id: string; expectedVersion: number }[],
): Promise<Existing[]> {
  const states: Existing[] = [];
  for (const target of targets) {
    const state = await ctx.loadMemoryToChange(target.id);
    ctx.checkVersion(state.doc, target.expectedVersion);
    states.push(state);
  }
  return states;
}

/** One memory made from several: recorded, and each member superseded by it, in one append. */
async function consolidateMemories(
  ctx: CommandContext,
  command: MaintenanceCommand<"memory.consolidate">,
): Promise<WriteResult | PlanResult> {
  requireReviewer(ctx, "consolidating memories");
  const ids = command.members.map((m) => m.id);
  requireDistinct(ids, "members");
  const members = await loadTargets(ctx, command.members);
  const first = (members[0] as Existing).doc;
  const sameDomain = members.every(
    (m) =>
      m.doc.scope === first.scope &&
      m.doc.project === first.project &&
      (first.scope !== "agent" || m.doc.agent === first.agent),
  );
  const input = command.consolidated;
  const scope = input.scope ?? "team";
  const project = input.project?.trim() || null;
  if (!sameDomain || scope !== first.scope || project !== first.project) {
    throw new CairnError(
      "validation_failed",
      "a consolidation joins memories of one scope and project (and one agent for private ones), and keeps them",
      {
        hint: "group memories by scope, project and owning agent, and give the consolidated memory the same scope and project",
        details: { scope: first.scope, project: first.project },
      },
    );
  }
  requireScope(ctx, scope);
  const body = bodyFromInput(input, "consolidated");
  const newId = ctx.newId("memory");
  const memberEvents = members.map((m) =>
    decideMemory(m, { type: "supersede", supersededBy: newId, reason: command.reason }),
  );
  const plan = planOrVerify(
    ctx,
    command,
    members.map((m) => item(m.doc, "supersede")),
    { members: command.members, consolidated: input, level: command.level, reason: command.reason },
  );
  if (plan) return plan;
  const appends: PlannedAppend[] = members.map(
    (m, i) => ctx.memoryAppend(m.doc.id, m, memberEvents[i] ?? [], m.doc.version).append,
  );
  const agents = new Set(members.map((m) => m.doc.agent));
  return recordNew(ctx, "memory", body, scope, {
    id: newId,
    agent: agents.size === 1 ? first.agent : ctx.principal.agent,
    alsoAppend: appends,
    consolidation: { from: ids, level: command.level },
  });
}

const reasonMax = 1000;

/** Archives memories that are no longer used, each with the dimensions that decided it. */
async function forgetMemories(
  ctx: CommandContext,
  command: MaintenanceCommand<"memory.forget">,
): Promise<WriteResult | PlanResult> {
  requireReviewer(ctx, "forgetting memories");
  requireDistinct(
    command.items.map((i) => i.id),
    "items",
  );
  const states = await loadTargets(ctx, command.items);
  const events = states.map((state, i) => {
    const why = (command.items[i]?.reasons ?? []).join("; ");
    const run = command.runId ? ` (maintenance run ${command.runId})` : "";
    return decideMemory(state, { type: "archive", reason: `forgotten${run}: ${why}`.slice(0, reasonMax) });
  });
  const plan = planOrVerify(
    ctx,
    command,
    states.map((s) => item(s.doc, "archive")),
    // The run id is not bound: a preview by one run may be applied by another.
    { items: command.items },
  );
  if (plan) return plan;
  const appends = states.map((s, i) => ctx.memoryAppend(s.doc.id, s, events[i] ?? [], s.doc.version).append);
  return ctx.commit(appends);
}

/**
 * Purges deleted memories: destroys their seals, then records `memory.purged`. The key
 * goes first: once it is gone the text is unreadable everywhere, whatever happens next; a
 * retry after a failed append finds the key gone (not an error) and records the event.
 */
async function purgeMemories(
  ctx: CommandContext,
  command: MaintenanceCommand<"memory.purge">,
): Promise<WriteResult | PlanResult> {
  requireAdmin(ctx, "purging memories");
  const ids = command.items.map((i) => i.id);
  requireDistinct(ids, "items");
  const states = await loadTargets(ctx, command.items);
  const events = states.map((state) =>
    decideMemory(state, { type: "purge", reason: command.reason, runId: command.runId }),
  );
  const plan = planOrVerify(
    ctx,
    command,
    states.map((s) => item(s.doc, "purge")),
    // Not the run id either: GC applies the token of an earlier run's preview.
    { items: command.items, reason: command.reason },
  );
  if (plan) return plan;
  await ctx.seals.shred(ids);
  const appends = states.map((s, i) => ctx.memoryAppend(s.doc.id, s, events[i] ?? [], s.doc.version).append);
  return ctx.commit(appends);
}

/** Records a finished maintenance run on its own stream (`maintenance-<runId>`). */
async function recordMaintenanceRun(
  ctx: CommandContext,
  command: MaintenanceCommand<"maintenance.record_run">,
): Promise<WriteResult> {
  requireAdmin(ctx, "recording a maintenance run");
  const run = command.run;
  return ctx.commit([
    {
      id: run.runId,
      streamType: "maintenance",
      streamId: streamIdFor("maintenance", run.runId),
      expectedVersion: "no_stream",
      events: [{ type: "maintenance.run_recorded", data: { ...run, tenant: ctx.principal.tenant } }],
    },
  ]);
}

export const maintenanceHandlers: MaintenanceHandlers = {
  "memory.consolidate": consolidateMemories,
  "memory.forget": forgetMemories,
  "memory.purge": purgeMemories,
  "maintenance.record_run": recordMaintenanceRun,
};
