// A memory stream (tiers memory, proposal and handoff): its state, folded from its events by
// the memory model's one fold, and `decideMemory`, which turns a decision into new events or
// refuses it (the lifecycles are the memory model's). Both are pure; the command handlers do
// the I/O around them.
import {
  CairnError,
  type CairnEvent,
  type EventData,
  type MemoryBody,
  type MemoryDocument,
  type Tier,
} from "@cairn/contracts";
import {
  evolveMemoryDocument,
  type MemoryEvent,
  memoryFoldVersion,
  recordedEventType,
  revisedEventType,
} from "@cairn/memory-model";

export type MemoryState = { exists: false } | { exists: true; doc: MemoryDocument; position: number };

export const initialMemoryState: MemoryState = { exists: false };

export type MemoryRecord = EventData<"memory.recorded">;
type Reason = string | null;

/** What a command asks of one memory stream. */
export type MemoryDecision =
  | { type: "record"; record: MemoryRecord }
  | { type: "revise"; tier: Tier; changes: Partial<MemoryBody> }
  | { type: "supersede"; supersededBy: string; reason: Reason }
  | { type: "archive"; reason: Reason }
  | { type: "delete"; reason: Reason }
  | { type: "restore"; reason: Reason }
  | { type: "invalidate"; invalidAt: string | null; reason: Reason }
  | { type: "verify"; verifiedAt: string; note: Reason }
  | { type: "purge"; reason: Reason; runId: string | null }
  | { type: "promote"; memoryId: string }
  | { type: "reject"; reason: Reason }
  | { type: "complete"; summary: Reason };

/** Applies one event of a memory stream to its state: the memory model's fold, and where it stands in the log. */
export function evolveMemory(state: MemoryState, event: MemoryEvent): MemoryState {
  return {
    exists: true,
    doc: evolveMemoryDocument(state.exists ? state.doc : null, event),
    position: event.position,
  };
}

/** The state after `events`, from the start of the stream or from a state it had (a snapshot). */
export function foldMemory(
  events: readonly MemoryEvent[],
  from: MemoryState = initialMemoryState,
): MemoryState {
  return events.reduce(evolveMemory, from);
}

/**
 * Names the fold above (the memory model's, at its `memoryFoldVersion`) for snapshots of memory
 * streams: snapshots of another are passed over (loads fold the whole stream, and keep a new one).
 */
export const memorySnapshotModel = `memory-document-v${memoryFoldVersion}`;

const tierWords = { memory: "a memory", proposal: "a proposal", handoff: "a handoff" } as const;

function refuse(doc: MemoryDocument, action: string, hint: string): never {
  throw new CairnError(
    "illegal_transition",
    `cannot ${action} ${doc.id}: it is ${tierWords[doc.tier]} in status ${doc.status}`,
    {
      hint,
      details: { id: doc.id, tier: doc.tier, status: doc.status, version: doc.version },
    },
  );
}

function requireTier(doc: MemoryDocument, tier: Tier, action: string): void {
  if (doc.tier === tier) return;
  const instead = {
    memory: "use the memory.* commands",
    proposal: "use the proposal.* commands (revise, promote, reject)",
    handoff: "use the handoff.* commands (update, complete)",
  }[doc.tier];
  refuse(doc, action, `${doc.id} is ${tierWords[doc.tier]}: ${instead}`);
}

/** The changes that actually differ from the document (an update that changes nothing writes nothing). */
function changedFields(doc: MemoryDocument, changes: Partial<MemoryBody>): Partial<MemoryBody> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    const current = (doc as Record<string, unknown>)[key];
    if (JSON.stringify(current) !== JSON.stringify(value)) out[key] = value;
  }
  return out as Partial<MemoryBody>;
}

/** The events a decision produces on a memory stream, or an `illegal_transition` refusal. */
export function decideMemory(state: MemoryState, decision: MemoryDecision): CairnEvent[] {
  if (decision.type === "record") {
    if (state.exists) {
      throw new CairnError("illegal_transition", `${state.doc.id} exists already`, {
        hint: "update it instead, with its current version",
      });
    }
    return [{ type: recordedEventType[decision.record.tier], data: decision.record }];
  }
  if (!state.exists) throw new CairnError("not_found", "no such memory");
  const doc = state.doc;
  switch (decision.type) {
    case "revise": {
      requireTier(doc, decision.tier, "revise");
      const editable = doc.tier === "proposal" ? doc.status === "pending" : doc.status === "active";
      if (!editable) {
        refuse(
          doc,
          "change",
          doc.tier === "memory"
            ? doc.status === "superseded"
              ? `it was superseded by ${doc.supersededBy}; change that one`
              : "restore it first"
            : `a ${doc.status} ${doc.tier} is final; write a new one`,
        );
      }
      const changes = changedFields(doc, decision.changes);
      if (Object.keys(changes).length === 0) return [];
      return [{ type: revisedEventType[doc.tier], data: changes }];
    }
    case "supersede":
      requireTier(doc, "memory", "supersede");
      if (doc.status !== "active") refuse(doc, "supersede", "only an active memory can be superseded");
      return [
        { type: "memory.superseded", data: { supersededBy: decision.supersededBy, reason: decision.reason } },
      ];
    case "archive":
      requireTier(doc, "memory", "archive");
      if (doc.status !== "active") refuse(doc, "archive", "only an active memory can be archived");
      return [{ type: "memory.archived", data: { reason: decision.reason } }];
    case "delete":
      requireTier(doc, "memory", "delete");
      if (doc.status === "deleted")
        refuse(doc, "delete", "it is deleted already; restore it to bring it back");
      return [{ type: "memory.deleted", data: { reason: decision.reason } }];
    case "restore":
      requireTier(doc, "memory", "restore");
      if (doc.status !== "archived" && doc.status !== "deleted") {
        refuse(doc, "restore", "only an archived or deleted memory can be restored");
      }
      if (doc.purgedAt) refuse(doc, "restore", "it was purged: its content is gone for good");
      if (doc.supersededBy !== null) {
        refuse(
          doc,
          "restore",
          `it was superseded by ${doc.supersededBy}; restore or change that one instead`,
        );
      }
      return [{ type: "memory.restored", data: { reason: decision.reason } }];
    case "invalidate":
      requireTier(doc, "memory", "invalidate");
      if (doc.status === "deleted") refuse(doc, "invalidate", "restore it first");
      if (doc.invalidAt === decision.invalidAt) return [];
      return [
        { type: "memory.invalidated", data: { invalidAt: decision.invalidAt, reason: decision.reason } },
      ];
    case "verify":
      requireTier(doc, "memory", "verify");
      if (doc.status !== "active") refuse(doc, "verify", "only an active memory can be verified");
      return [{ type: "memory.verified", data: { verifiedAt: decision.verifiedAt, note: decision.note } }];
    case "purge":
      requireTier(doc, "memory", "purge");
      if (doc.status !== "deleted")
        refuse(doc, "purge", "only a deleted memory can be purged; delete it first");
      if (doc.purgedAt) refuse(doc, "purge", "it is purged already");
      return [{ type: "memory.purged", data: { reason: decision.reason, runId: decision.runId } }];
    case "promote":
      requireTier(doc, "proposal", "promote");
      if (doc.status !== "pending") refuse(doc, "promote", "only a pending proposal can be promoted");
      return [{ type: "proposal.promoted", data: { memoryId: decision.memoryId } }];
    case "reject":
      requireTier(doc, "proposal", "reject");
      if (doc.status !== "pending") refuse(doc, "reject", "only a pending proposal can be rejected");
      return [{ type: "proposal.rejected", data: { reason: decision.reason } }];
    case "complete":
      requireTier(doc, "handoff", "complete");
      if (doc.status !== "active") refuse(doc, "complete", "it is completed already");
      return [{ type: "handoff.completed", data: { summary: decision.summary } }];
    default: {
      const unknown: never = decision;
      throw new Error(`unknown decision ${(unknown as { type: string }).type}`);
    }
  }
}
