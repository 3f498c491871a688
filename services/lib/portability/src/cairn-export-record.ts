// Builds an export record from what the log holds: a memory's current document and the events
// of its stream. The events must be opened first (contracts' `openSealedEvents`); a purged
// memory's text cannot be opened and is left out everywhere.
import {
  CairnError,
  type CairnExportRecord,
  CairnExportRecordSchema,
  type CairnExportVersion,
  isSealed,
  type MemoryDocument,
  type MemoryStreamEventType,
  memoryStreamEventTypes,
  type StoredEvent,
} from "@cairn/contracts";
import { z } from "zod";

const TextFieldsSchema = z.object({ title: z.string().optional(), content: z.string().optional() });

/** The title and content an event of a memory stream sets, if it sets any. */
function textSetBy(type: MemoryStreamEventType, data: unknown): { title?: string; content?: string } {
  switch (type) {
    case "memory.recorded":
    case "proposal.submitted":
    case "handoff.opened":
    case "memory.revised":
    case "proposal.revised":
    case "handoff.updated": {
      const parsed = TextFieldsSchema.safeParse(data);
      return parsed.success ? parsed.data : {};
    }
    case "memory.superseded":
    case "memory.archived":
    case "memory.deleted":
    case "memory.restored":
    case "memory.invalidated":
    case "memory.verified":
    case "proposal.promoted":
    case "proposal.rejected":
    case "handoff.completed":
    case "memory.purged":
      return {};
    default: {
      const never: never = type;
      throw new Error(`unhandled memory event type ${String(never)}`);
    }
  }
}

function isMemoryStreamEventType(type: string): type is MemoryStreamEventType {
  return (memoryStreamEventTypes as readonly string[]).includes(type);
}

/**
 * The export record of one memory. `history` is its stream's events (opened, in any order);
 * a version carries a title or content only where the event changed it.
 */
export function cairnExportRecord(
  doc: MemoryDocument,
  history: readonly Pick<StoredEvent, "type" | "version" | "data" | "meta">[],
): CairnExportRecord {
  const purged = doc.purgedAt != null;
  const versions: CairnExportVersion[] = [];
  let title: string | undefined;
  let content: string | undefined;
  for (const event of [...history].sort((a, b) => a.version - b.version)) {
    if (!isMemoryStreamEventType(event.type)) {
      throw new CairnError(
        "validation_failed",
        `event type ${event.type} does not belong to a memory stream`,
        {
          details: { memoryId: doc.id, version: event.version },
        },
      );
    }
    const version: CairnExportVersion = {
      version: event.version,
      type: event.type,
      at: event.meta.recordedAt,
      agent: event.meta.actor,
    };
    const set = purged ? {} : textSetBy(event.type, event.data);
    if (isSealed(set.title) || isSealed(set.content)) {
      throw new CairnError("validation_failed", `memory ${doc.id} version ${event.version} is still sealed`, {
        hint: "open the stream's events with openSealedEvents before exporting",
        details: { memoryId: doc.id, version: event.version },
      });
    }
    if (set.title !== undefined && set.title !== title) version.title = title = set.title;
    if (set.content !== undefined && set.content !== content) version.content = content = set.content;
    versions.push(version);
  }
  if (!purged && (isSealed(doc.content) || isSealed(doc.title))) {
    throw new CairnError("validation_failed", `memory ${doc.id} is still sealed`, {
      hint: "export the document as read models hold it, with its text opened",
      details: { memoryId: doc.id },
    });
  }
  return CairnExportRecordSchema.parse({
    id: doc.id,
    tier: doc.tier,
    status: doc.status,
    slot: doc.slot,
    kind: doc.kind,
    scope: doc.scope,
    agent: doc.agent,
    title: purged ? "" : doc.title,
    content: purged ? "" : doc.content,
    tags: doc.tags,
    aliases: doc.aliases,
    keys: doc.keys,
    links: doc.links,
    project: doc.project,
    source: doc.source,
    validFrom: doc.validFrom,
    invalidAt: doc.invalidAt,
    verifiedAt: doc.verifiedAt,
    supersedes: doc.supersedes,
    supersededBy: doc.supersededBy,
    promotedFrom: doc.promotedFrom,
    promotedTo: doc.promotedTo,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    ...(doc.episode ? { episode: doc.episode } : {}),
    purged,
    versions,
  });
}
