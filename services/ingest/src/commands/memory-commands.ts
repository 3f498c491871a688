// Commands on memory streams: every tier's create/revise and the memory lifecycle, including
// the destructive two-step ones (supersede, delete, resolve a conflict).
import {
  CairnError,
  type IngestCommand,
  type MemoryBody,
  type MemoryInput,
  type PlanResult,
  planTokenTtlMs,
  type Scope,
  type Tier,
  type WriteResult,
} from "@cairn/contracts";
import { canWriteScope } from "@cairn/memory-model";
import { bodyFromInput, changesToBody, slotOf } from "../domain/memory-body.ts";
import {
  decideMemory,
  initialMemoryState,
  type MemoryDecision,
  type MemoryState,
} from "../domain/memory-stream.ts";
import { issuePlanToken, type PlanItem, parametersDigest, verifyPlanToken } from "../domain/plan-token.ts";
import type { CommandContext, PlannedAppend } from "./command-context.ts";

type Existing = MemoryState & { exists: true };

export function requireScope(ctx: CommandContext, scope: Scope): void {
  if (canWriteScope(scope, ctx.principal)) return;
  throw new CairnError("forbidden", "only an admin may write to the global scope", {
    hint: "write with scope team (your tenant) or agent (only you)",
    details: { scope },
  });
}

/** Records a new memory, proposal or handoff (with links to its keys) from a body. */
export async function recordNew(
  ctx: CommandContext,
  tier: Tier,
  body: MemoryBody,
  scope: Scope,
  extra: {
    agent?: string;
    supersedes?: string | null;
    promotedFrom?: string | null;
    alsoAppend?: PlannedAppend[];
    id?: string;
    /** A consolidation: the memories it is made from, and its level. */
    consolidation?: { from: string[]; level: number };
  } = {},
): Promise<WriteResult> {
  requireScope(ctx, scope);
  const id = extra.id ?? ctx.newId("memory");
  const events = decideMemory(initialMemoryState, {
    type: "record",
    record: {
      ...body,
      id,
      tier,
      scope,
      agent: extra.agent ?? ctx.principal.agent,
      supersedes: extra.supersedes ?? null,
      promotedFrom: extra.promotedFrom ?? null,
      ...(extra.consolidation
        ? { consolidatedFrom: extra.consolidation.from, level: extra.consolidation.level }
        : {}),
    },
  });
  const { append, after } = ctx.memoryAppend(id, initialMemoryState, events, "no_stream");
  if (!after.exists) throw new Error("a recorded memory must exist");
  const also = extra.alsoAppend ?? [];
  const keys = ctx.keyLinks(id, body.keys, [], after.doc);
  return ctx.commit([append, ...also, ...keys], 1 + also.length);
}

export function createInTier(
  ctx: CommandContext,
  tier: Tier,
  input: IngestCommand<"memory.create">["memory"],
) {
  return recordNew(ctx, tier, bodyFromInput(input, tier === "memory" ? "memory" : tier), input.scope);
}

export async function reviseInTier(
  ctx: CommandContext,
  tier: Tier,
  command: IngestCommand<"memory.update">,
): Promise<WriteResult> {
  const state = await ctx.loadMemoryToChange(command.id);
  ctx.checkVersion(state.doc, command.expectedVersion);
  const changes = changesToBody(state.doc, command.changes);
  const events = decideMemory(state, { type: "revise", tier, changes });
  const { append, after } = ctx.memoryAppend(command.id, state, events, command.expectedVersion);
  if (!after.exists) throw new Error("a revised memory must exist");
  const keys = ctx.keyLinks(command.id, after.doc.keys, state.doc.keys, after.doc);
  return ctx.commit([append, ...keys], 1);
}

/** A lifecycle step on one stream: load what the caller may change, check its version, decide, append. */
export async function transition(
  ctx: CommandContext,
  command: { id: string; expectedVersion: number },
  decision: MemoryDecision,
): Promise<WriteResult> {
  const state = await ctx.loadMemoryToChange(command.id);
  ctx.checkVersion(state.doc, command.expectedVersion);
  const events = decideMemory(state, decision);
  const { append } = ctx.memoryAppend(command.id, state, events, command.expectedVersion);
  return ctx.commit([append]);
}

export type TwoStep = { dryRun: boolean; token?: string | undefined };

/**
 * The two steps of a destructive command: a dry run answers the plan and its token; an
 * execution needs a token made for exactly this plan (same versions, same parameters).
 */
export function planOrVerify(
  ctx: CommandContext,
  command: TwoStep,
  plan: PlanItem[],
  parameters: Record<string, unknown>,
): PlanResult | undefined {
  const binding = {
    command: ctx.name,
    tenant: ctx.principal.tenant,
    agent: ctx.principal.agent,
    plan,
    parameters: parametersDigest(parameters),
  };
  if (command.dryRun) {
    const expiresAt = ctx.now.getTime() + planTokenTtlMs;
    return {
      dryRun: true,
      plan,
      token: issuePlanToken(ctx.tokenSecret, binding, expiresAt),
      expiresAt: new Date(expiresAt).toISOString(),
    };
  }
  if (command.token === undefined) {
    throw new CairnError("precondition_required", `${ctx.name} is destructive and needs a dry run first`, {
      hint: "send the same command with dryRun: true, check the plan, then send it again with the token it returned",
    });
  }
  verifyPlanToken(ctx.tokenSecret, command.token, binding, ctx.now.getTime());
  return undefined;
}

export function item(doc: Existing["doc"], action: string): PlanItem {
  return { id: doc.id, action, version: doc.version, slot: doc.slot };
}

export async function deleteMemory(
  ctx: CommandContext,
  command: IngestCommand<"memory.delete">,
): Promise<WriteResult | PlanResult> {
  const state = await ctx.loadMemoryToChange(command.id);
  ctx.checkVersion(state.doc, command.expectedVersion);
  const events = decideMemory(state, { type: "delete", reason: command.reason });
  const plan = planOrVerify(ctx, command, [item(state.doc, "delete")], {
    id: command.id,
    reason: command.reason,
  });
  if (plan) return plan;
  const { append } = ctx.memoryAppend(command.id, state, events, command.expectedVersion);
  return ctx.commit([append]);
}

export async function supersedeMemory(
  ctx: CommandContext,
  command: IngestCommand<"memory.supersede">,
): Promise<WriteResult | PlanResult> {
  const old = await ctx.loadMemoryToChange(command.id);
  ctx.checkVersion(old.doc, command.expectedVersion);
  const input: MemoryInput & { scope: Scope } = {
    ...command.replacement,
    slot:
      command.replacement.slot === undefined
        ? old.doc.slot
        : slotOf(command.replacement.slot, "replacement.slot"),
  };
  const body = bodyFromInput(input as IngestCommand<"memory.create">["memory"], "replacement");
  requireScope(ctx, input.scope);
  const newId = ctx.newId("memory");
  const oldEvents = decideMemory(old, { type: "supersede", supersededBy: newId, reason: command.reason });
  const plan = planOrVerify(ctx, command, [item(old.doc, "supersede")], {
    id: command.id,
    replacement: command.replacement,
    reason: command.reason,
  });
  if (plan) return plan;
  const { append: oldAppend } = ctx.memoryAppend(command.id, old, oldEvents, command.expectedVersion);
  return recordNew(ctx, "memory", body, input.scope, {
    supersedes: old.doc.id,
    alsoAppend: [oldAppend],
    id: newId,
  });
}

export async function resolveConflict(
  ctx: CommandContext,
  command: IngestCommand<"memory.resolve_conflict">,
): Promise<WriteResult | PlanResult> {
  if (command.keepId === command.otherId) {
    throw new CairnError("validation_failed", "keepId and otherId are the same memory", {
      hint: "give the memory to keep and the one that conflicts with it",
    });
  }
  const keep = await ctx.loadMemoryToChange(command.keepId);
  const other = await ctx.loadMemoryToChange(command.otherId);
  if (keep.doc.tier !== "memory" || keep.doc.status !== "active") {
    throw new CairnError("illegal_transition", `the memory to keep (${keep.doc.id}) is not active`, {
      hint: "resolve a conflict between two active memories; restore the one to keep first",
      details: { id: keep.doc.id, tier: keep.doc.tier, status: keep.doc.status },
    });
  }
  const decision: MemoryDecision =
    command.action === "supersede"
      ? { type: "supersede", supersededBy: keep.doc.id, reason: command.reason }
      : { type: command.action, reason: command.reason };
  const events = decideMemory(other, decision);
  const plan = planOrVerify(ctx, command, [item(keep.doc, "keep"), item(other.doc, command.action)], {
    keepId: command.keepId,
    otherId: command.otherId,
    action: command.action,
    reason: command.reason,
  });
  if (plan) return plan;
  const { append } = ctx.memoryAppend(other.doc.id, other, events, other.doc.version);
  // The kept memory is not written, but it must still be at the version the plan saw.
  const { append: keepAssert } = ctx.memoryAppend(keep.doc.id, keep, [], keep.doc.version);
  return ctx.commit([append, { ...keepAssert, reservations: {} }], 1);
}
