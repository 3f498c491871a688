// What maintenance knows of one memory stream, evolved from its events (with their sealed
// text already opened): lifecycle, labels, and features of the text, never the text itself.
// Pure, so the same log always gives the same cards.
import type { Kind, Scope, Status, StoredEvent, Tier } from "@cairn/contracts";
import { distinctTopicWords, shingles, sketch } from "../text/text-features.ts";

export type MemoryCard = {
  id: string;
  tenant: string;
  tier: Tier;
  status: Status;
  kind: Kind;
  scope: Scope;
  agent: string;
  project: string | null;
  slot: string;
  tags: string[];
  keys: string[];
  aliases: string[];
  /** Normalised (lowercased) entity texts. */
  entities: string[];
  sentiment: number;
  contentHash: string;
  createdAt: string;
  updatedAt: string;
  /** When the status last changed (the time of deletion, for a deleted memory). */
  statusChangedAt: string;
  verifiedAt: string | null;
  invalidAt: string | null;
  supersededBy: string | null;
  /** 1 for a memory as written; a consolidation is one more than its highest source. */
  level: number;
  consolidatedFrom: string[];
  purgedAt: string | null;
  version: number;
  /** The log position of each version (index 0: version 1). */
  positions: number[];
  titleWords: string[];
  contentWords: string[];
  /** Bottom-k sketch of the normalised content's word 3-shingles. */
  sketch: number[];
  contentChars: number;
};

type Body = {
  content?: string;
  title?: string;
  entities?: { text: string }[];
  slot?: string;
  kind?: Kind;
  tags?: string[];
  keys?: string[];
  aliases?: string[];
  sentiment?: number;
  contentHash?: string;
  project?: string | null;
};

const created = new Set(["memory.recorded", "proposal.submitted", "handoff.opened"]);
const revised = new Set(["memory.revised", "proposal.revised", "handoff.updated"]);
const statusAfter: Record<string, Status> = {
  "memory.superseded": "superseded",
  "memory.archived": "archived",
  "memory.deleted": "deleted",
  "memory.restored": "active",
  "proposal.promoted": "promoted",
  "proposal.rejected": "rejected",
  "handoff.completed": "completed",
};

function textFeatures(content: string) {
  return {
    contentWords: distinctTopicWords(content),
    sketch: sketch(shingles(content)),
    contentChars: content.length,
  };
}

function withBody(card: MemoryCard, body: Body): MemoryCard {
  const next: MemoryCard = { ...card };
  if (body.slot !== undefined) next.slot = body.slot;
  if (body.kind !== undefined) next.kind = body.kind;
  if (body.tags !== undefined) next.tags = body.tags;
  if (body.keys !== undefined) next.keys = body.keys;
  if (body.aliases !== undefined) next.aliases = body.aliases;
  if (body.sentiment !== undefined) next.sentiment = body.sentiment;
  if (body.contentHash !== undefined) next.contentHash = body.contentHash;
  if (body.project !== undefined) next.project = body.project;
  if (body.entities !== undefined)
    next.entities = [...new Set(body.entities.map((e) => e.text.toLowerCase()))];
  if (body.title !== undefined) next.titleWords = distinctTopicWords(body.title, 50);
  if (body.content !== undefined) Object.assign(next, textFeatures(body.content));
  return next;
}

/** The card after one event of its stream (`undefined` before the stream's first event). */
export function evolveCard(card: MemoryCard | undefined, event: StoredEvent): MemoryCard | undefined {
  const at = event.meta.recordedAt;
  const stamp = (c: MemoryCard): MemoryCard => ({
    ...c,
    version: event.version,
    positions: [...c.positions, event.position],
    updatedAt: at,
  });
  if (created.has(event.type)) {
    const d = event.data as Body & {
      id: string;
      tier: Tier;
      scope: Scope;
      agent: string;
      level?: number;
      consolidatedFrom?: string[];
    };
    const base: MemoryCard = {
      id: d.id,
      tenant: event.meta.tenant,
      tier: d.tier,
      status: d.tier === "proposal" ? "pending" : "active",
      kind: "note",
      scope: d.scope,
      agent: d.agent,
      project: null,
      slot: "",
      tags: [],
      keys: [],
      aliases: [],
      entities: [],
      sentiment: 0,
      contentHash: "",
      createdAt: at,
      updatedAt: at,
      statusChangedAt: at,
      verifiedAt: null,
      invalidAt: null,
      supersededBy: null,
      level: d.level ?? 1,
      consolidatedFrom: d.consolidatedFrom ?? [],
      purgedAt: null,
      version: 0,
      positions: [],
      titleWords: [],
      contentWords: [],
      sketch: [],
      contentChars: 0,
    };
    return stamp(withBody(base, d));
  }
  if (!card) return card;
  if (revised.has(event.type)) return stamp(withBody(card, event.data as Body));
  const status = statusAfter[event.type];
  if (status !== undefined) {
    const data = event.data as { supersededBy?: string };
    return stamp({
      ...card,
      status,
      statusChangedAt: at,
      supersededBy: event.type === "memory.superseded" ? (data.supersededBy ?? null) : card.supersededBy,
    });
  }
  switch (event.type) {
    case "memory.invalidated":
      return stamp({ ...card, invalidAt: (event.data as { invalidAt: string | null }).invalidAt });
    case "memory.verified":
      return stamp({ ...card, verifiedAt: (event.data as { verifiedAt: string }).verifiedAt });
    case "memory.purged":
      return stamp({
        ...card,
        purgedAt: at,
        entities: [],
        titleWords: [],
        contentWords: [],
        sketch: [],
        contentChars: 0,
      });
    default:
      // A memory event type this version does not know: it still moves the version.
      return stamp(card);
  }
}

/** The version a memory had once the log reached `position` (0: it did not exist yet). */
export function versionAt(card: MemoryCard, position: number): number {
  let version = 0;
  for (const p of card.positions) {
    if (p > position) break;
    version += 1;
  }
  return version;
}

/** The topic words of a memory: title and content. */
export function cardWords(card: MemoryCard): string[] {
  return [...new Set([...card.titleWords, ...card.contentWords])];
}
