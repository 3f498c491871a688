// A memory stream (tiers memory, proposal and handoff): its state, folded from its events
// by `evolveMemory`, and `decideMemory`, which turns a decision into new events or refuses
// it. Both are pure; the command handlers do the I/O around them.
//
// Lifecycles:
//   memory    active → superseded | archived | deleted; archived | deleted → active (restore);
//             deleted → purged (content key destroyed; final: status stays deleted, text empty)
//   proposal  pending → promoted | rejected
//   handoff   active → completed
import {
  CairnError,
  type CairnEvent,
  type EventData,
  type MemoryBody,
  type MemoryDocument,
  type StoredEvent,
  type Tier,
} from "@cairn/contracts";

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

type MemoryEvent = Extract<
  CairnEvent,
  {
    type:
      | "memory.recorded"
      | "memory.revised"
      | "memory.superseded"
      | "memory.archived"
      | "memory.deleted"
      | "memory.restored"
      | "memory.invalidated"
      | "memory.verified"
      | "memory.purged"
      | "proposal.submitted"
      | "proposal.revised"
      | "proposal.promoted"
      | "proposal.rejected"
      | "handoff.opened"
      | "handoff.updated"
      | "handoff.completed";
  }
>;

const recordedType = {
  memory: "memory.recorded",
  proposal: "proposal.submitted",
  handoff: "handoff.opened",
} as const;
const revisedType = {
  memory: "memory.revised",
  proposal: "proposal.revised",
  handoff: "handoff.updated",
} as const;
const initialStatus = { memory: "active", proposal: "pending", handoff: "active" } as const;

/** Applies one stored event of a memory stream to its state. */
export function evolveMemory(state: MemoryState, stored: StoredEvent): MemoryState {
  const event = { type: stored.type, data: stored.data } as MemoryEvent;
  const at = stored.meta.recordedAt;
  const next = (doc: MemoryDocument): MemoryState => ({
    exists: true,
    doc: { ...doc, version: stored.version, updatedAt: at },
    position: stored.position,
  });
  if (
    event.type === "memory.recorded" ||
    event.type === "proposal.submitted" ||
    event.type === "handoff.opened"
  ) {
    return next({
      ...event.data,
      status: initialStatus[event.data.tier],
      tenant: stored.meta.tenant,
      invalidAt: null,
      verifiedAt: null,
      supersededBy: null,
      promotedTo: null,
      version: stored.version,
      createdAt: at,
      updatedAt: at,
    });
  }
  if (!state.exists) return state;
  const doc = state.doc;
  switch (event.type) {
    case "memory.revised":
    case "proposal.revised":
    case "handoff.updated":
      return next({ ...doc, ...event.data });
    case "memory.superseded":
      return next({ ...doc, status: "superseded", supersededBy: event.data.supersededBy });
    case "memory.archived":
      return next({ ...doc, status: "archived" });
    case "memory.deleted":
      return next({ ...doc, status: "deleted" });
    case "memory.restored":
      return next({ ...doc, status: "active" });
    case "memory.invalidated":
      return next({ ...doc, invalidAt: event.data.invalidAt });
    case "memory.verified":
      return next({ ...doc, verifiedAt: event.data.verifiedAt });
    case "memory.purged":
      // The sealed text cannot be opened any more; the state says so instead of holding noise.
      return next({ ...doc, content: "", title: "", entities: [], purgedAt: at });
    case "proposal.promoted":
      return next({ ...doc, status: "promoted", promotedTo: event.data.memoryId });
    case "proposal.rejected":
      return next({ ...doc, status: "rejected" });
    case "handoff.completed":
      return next({ ...doc, status: "completed" });
    default: {
      const unknown: never = event;
      throw new Error(`not a memory event: ${(unknown as { type: string }).type}`);
    }
  }
}

export function foldMemory(events: readonly StoredEvent[]): MemoryState {
  return events.reduce(evolveMemory, initialMemoryState);
}

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
    return [{ type: recordedType[decision.record.tier], data: decision.record }];
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
      return [{ type: revisedType[doc.tier], data: changes }];
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
