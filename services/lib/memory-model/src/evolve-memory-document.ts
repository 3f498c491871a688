// The one fold of a memory stream (tiers memory, proposal, handoff) into its current document.
// Pure and exhaustive: ingest decides on it, and every read model (search's documents and
// vectors, ranking's cards, maintenance's view) derives its own view from what it returns,
// so no two of them can disagree about what a stream means.
//
// Lifecycles:
//   memory    active → superseded | archived | deleted; archived | deleted → active (restore);
//             deleted → purged (seal destroyed; final: status stays deleted, text empty)
//   proposal  pending → promoted | rejected
//   handoff   active → completed
import type { MemoryDocument } from "@cairn/contracts";
import { initialStatus, type MemoryEvent } from "./memory-events.ts";
import { MemoryFoldError } from "./memory-fold-error.ts";
import { memoryIdOfStream } from "./memory-stream-id.ts";

/**
 * The version of this fold and of the document it makes. Whatever keeps a folded document
 * to fold on from later (ingest's stream snapshots) names it, so a change here must raise it:
 * documents folded before are then folded again from the log.
 */
export const memoryFoldVersion = 1;

function cannotApply(event: MemoryEvent, why: string): never {
  throw new MemoryFoldError(
    `${event.type} v${event.version} at position ${event.position} (${event.streamId}): ${why}`,
  );
}

/** Keeps only the fields a partial revision actually carries. */
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
  if (memoryIdOfStream(event.streamId) !== d.id) {
    cannotApply(event, `data.id ${d.id} does not match the stream`);
  }
  const at = event.meta.recordedAt;
  return {
    id: d.id,
    tier: d.tier,
    status: initialStatus[d.tier],
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
    ...(d.episode ? { episode: d.episode } : {}),
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
 * Throws a MemoryFoldError when the event cannot follow the document.
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
      // Crypto-shredded: the sealed text can never be opened again, so no view keeps any.
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

/** The document of a whole stream (null when it has no events). */
export function foldMemoryDocument(events: readonly MemoryEvent[]): MemoryDocument | null {
  return events.reduce<MemoryDocument | null>(evolveMemoryDocument, null);
}
