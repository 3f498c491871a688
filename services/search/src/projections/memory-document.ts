// The current document of a memory stream (tiers memory, proposal, handoff), built by folding
// the stream's events. Pure and exhaustive: both read models and the rebuild use this one
// function, so live projection and replay cannot disagree.
import type { MemoryDocument } from "@cairn/contracts";
import type { MemoryEvent } from "./projected-event.ts";
import { PoisonEventError } from "./projected-event.ts";

const streamPrefix = "memory-";

/** The memory id of a memory-stream event (streams are `memory-<id>`). */
export function memoryIdOf(event: MemoryEvent): string {
  if (!event.streamId.startsWith(streamPrefix)) {
    throw new PoisonEventError(
      "cannot_apply",
      `${event.type} on stream ${event.streamId}, not a memory stream`,
    );
  }
  return event.streamId.slice(streamPrefix.length);
}

function cannotApply(event: MemoryEvent, why: string): never {
  throw new PoisonEventError(
    "cannot_apply",
    `${event.type} v${event.version} at position ${event.position} (${event.streamId}): ${why}`,
  );
}

/** Keeps only the keys a partial revision actually carries. */
function definedFields<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<T>;
}

type CreationEvent = Extract<
  MemoryEvent,
  { type: "memory.recorded" | "proposal.submitted" | "handoff.opened" }
>;

function created(doc: MemoryDocument | null, event: CreationEvent): MemoryDocument {
  if (doc !== null) cannotApply(event, `the stream already holds version ${doc.version}`);
  if (event.version !== 1) cannotApply(event, "a stream is created by its first event");
  const d = event.data;
  if (memoryIdOf(event) !== d.id) cannotApply(event, `data.id ${d.id} does not match the stream`);
  const at = event.meta.recordedAt;
  return {
    id: d.id,
    tier: d.tier,
    status: d.tier === "proposal" ? "pending" : "active",
    slot: d.slot,
    kind: d.kind,
    content: d.content,
    title: d.title,
    tags: d.tags,
    aliases: d.aliases,
    keys: d.keys,
    entities: d.entities,
    links: d.links,
    sentiment: d.sentiment,
    scope: d.scope,
    tenant: event.meta.tenant,
    agent: d.agent,
    project: d.project,
    source: d.source,
    validFrom: d.validFrom,
    invalidAt: null,
    verifiedAt: null,
    supersedes: d.supersedes,
    supersededBy: null,
    promotedTo: null,
    promotedFrom: d.promotedFrom,
    version: 1,
    contentHash: d.contentHash,
    createdAt: at,
    updatedAt: at,
    ...(d.consolidatedFrom ? { consolidatedFrom: d.consolidatedFrom } : {}),
    ...(d.level ? { level: d.level } : {}),
  };
}

/** The document an event after the first one changes: it must exist and be one version behind. */
function following(doc: MemoryDocument | null, event: MemoryEvent): MemoryDocument {
  if (doc === null) return cannotApply(event, "the stream was never created");
  if (event.version !== doc.version + 1) {
    return cannotApply(event, `expected version ${doc.version + 1}; an earlier event is missing`);
  }
  return { ...doc, version: event.version, updatedAt: event.meta.recordedAt };
}

/**
 * Applies one event to the document it belongs to (`null` before the stream's first event).
 * Throws a PoisonEventError when the event cannot follow the document: a second creation,
 * a change to a stream never created, or a version gap (an event was lost upstream).
 */
export function evolveMemoryDocument(doc: MemoryDocument | null, event: MemoryEvent): MemoryDocument {
  switch (event.type) {
    case "memory.recorded":
    case "proposal.submitted":
    case "handoff.opened":
      return created(doc, event);
    case "memory.revised":
    case "proposal.revised":
    case "handoff.updated":
      return { ...following(doc, event), ...definedFields(event.data) };
    case "memory.superseded":
      return { ...following(doc, event), status: "superseded", supersededBy: event.data.supersededBy };
    case "memory.archived":
      return { ...following(doc, event), status: "archived" };
    case "memory.deleted":
      return { ...following(doc, event), status: "deleted" };
    case "memory.restored":
      return { ...following(doc, event), status: "active" };
    case "memory.invalidated":
      // `invalidAt: null` lifts an earlier invalidation.
      return { ...following(doc, event), invalidAt: event.data.invalidAt };
    case "memory.verified":
      return { ...following(doc, event), verifiedAt: event.data.verifiedAt };
    case "memory.purged":
      // Crypto-shredded: its content key is gone, so the read model keeps no text for it.
      return {
        ...following(doc, event),
        content: "",
        title: "",
        entities: [],
        purgedAt: event.meta.recordedAt,
      };
    case "proposal.promoted":
      return { ...following(doc, event), status: "promoted", promotedTo: event.data.memoryId };
    case "proposal.rejected":
      return { ...following(doc, event), status: "rejected" };
    case "handoff.completed":
      return { ...following(doc, event), status: "completed" };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}
