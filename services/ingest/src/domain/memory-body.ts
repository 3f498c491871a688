// Turns what an agent wrote into a memory body: the content exactly as written (never split
// or rewritten), normalised slot and labels, and what ingest derives from the text (entities,
// [[links]], sentiment, content hash). Pure: the same input always gives the same body.
import {
  CairnError,
  type IngestCommand,
  type MemoryBody,
  type MemoryDocument,
  normaliseSlot,
} from "@cairn/contracts";
import { extractEntities } from "./entities.ts";
import { extractLinks } from "./links.ts";
import { contentHash, normaliseLabels, titleFromContent } from "./normalise.ts";
import { sentimentOf } from "./sentiment.ts";

type MemoryInput = IngestCommand<"memory.create">["memory"];
type MemoryChanges = IngestCommand<"memory.update">["changes"];

/** The slot in canonical form, or `validation_failed` when nothing of it is left. */
export function slotOf(raw: string, field = "slot"): string {
  const slot = normaliseSlot(raw);
  if (slot.length === 0) {
    throw new CairnError("validation_failed", `${field} has no letters or digits`, {
      hint: "name the topic, for example project-package-manager",
      details: { field },
    });
  }
  return slot;
}

function derived(content: string, title: string) {
  return {
    entities: extractEntities(content, title),
    links: extractLinks(content),
    sentiment: sentimentOf(content),
    contentHash: contentHash(content),
  };
}

function trimmedOrNull(value: string | null | undefined): string | null {
  const v = value?.trim();
  return v ? v : null;
}

export function bodyFromInput(input: MemoryInput, field = "memory"): MemoryBody {
  const title = input.title?.trim() || titleFromContent(input.content);
  return {
    slot: slotOf(input.slot, `${field}.slot`),
    kind: input.kind,
    content: input.content,
    title,
    tags: normaliseLabels(input.tags, { lowerCase: true }),
    aliases: normaliseLabels(input.aliases),
    keys: normaliseLabels(input.keys),
    project: trimmedOrNull(input.project),
    source: trimmedOrNull(input.source),
    validFrom: input.validFrom,
    ...(input.episode
      ? { episode: { id: input.episode.id.trim(), order: input.episode.order ?? null } }
      : {}),
    ...derived(input.content, title),
  };
}

/** The body fields an update sets, with the derived ones recomputed when content or title change. */
export function changesToBody(doc: MemoryDocument, changes: MemoryChanges): Partial<MemoryBody> {
  const out: Partial<MemoryBody> = {};
  if (changes.kind !== undefined) out.kind = changes.kind;
  if (changes.content !== undefined) out.content = changes.content;
  if (changes.title !== undefined)
    out.title = changes.title.trim() || titleFromContent(changes.content ?? doc.content);
  if (changes.tags !== undefined) out.tags = normaliseLabels(changes.tags, { lowerCase: true });
  if (changes.aliases !== undefined) out.aliases = normaliseLabels(changes.aliases);
  if (changes.keys !== undefined) out.keys = normaliseLabels(changes.keys);
  if (changes.project !== undefined) out.project = trimmedOrNull(changes.project);
  if (changes.source !== undefined) out.source = trimmedOrNull(changes.source);
  if (changes.validFrom !== undefined) out.validFrom = changes.validFrom;
  const content = out.content ?? doc.content;
  const title = out.title ?? doc.title;
  if (content !== doc.content || title !== doc.title) Object.assign(out, derived(content, title));
  return out;
}

/** A full input from an existing body with changes on top (a proposal promoted with edits). */
export function bodyWithChanges(doc: MemoryDocument, changes: MemoryChanges | undefined): MemoryBody {
  const base: MemoryBody = {
    slot: doc.slot,
    kind: doc.kind,
    content: doc.content,
    title: doc.title,
    tags: doc.tags,
    aliases: doc.aliases,
    keys: doc.keys,
    entities: doc.entities,
    links: doc.links,
    sentiment: doc.sentiment,
    contentHash: doc.contentHash,
    project: doc.project,
    source: doc.source,
    validFrom: doc.validFrom,
  };
  return changes ? { ...base, ...changesToBody(doc, changes) } : base;
}
