// The part of a memory's current state the ranking read models need (no content), evolved
// from the memory stream's events. Pure: both projections keep their own copy.
import {
  type Entity,
  type EventData,
  eventSchemas,
  isEventType,
  type Kind,
  type Principal,
  type Scope,
  type Status,
  type StoredEvent,
  type Tier,
} from "@cairn/contracts";
import { scoringTerms } from "../../text/analyze-text.ts";

export type MemoryCard = {
  id: string;
  tenant: string;
  tier: Tier;
  status: Status;
  scope: Scope;
  agent: string;
  slot: string;
  title: string;
  kind: Kind;
  sentiment: number;
  keys: string[];
  entities: Entity[];
  /** Distinct scoring terms of title and content (at most `maxCardTerms`). */
  terms: string[];
  /** Number of scoring terms (with repeats): the document length for BM25. */
  length: number;
  createdAt: string;
  updatedAt: string;
};

export const maxCardTerms = 256;

const memoryEventTypes = new Set([
  "memory.recorded",
  "memory.revised",
  "memory.superseded",
  "memory.archived",
  "memory.deleted",
  "memory.restored",
  "memory.invalidated",
  "memory.verified",
  "proposal.submitted",
  "proposal.revised",
  "proposal.promoted",
  "proposal.rejected",
  "handoff.opened",
  "handoff.updated",
  "handoff.completed",
  "memory.purged",
]);

export function isMemoryEvent(type: string): boolean {
  return memoryEventTypes.has(type);
}

/** The memory id of a memory stream (`memory-<id>`). */
export function memoryIdOf(event: StoredEvent): string {
  return event.streamId.startsWith("memory-") ? event.streamId.slice("memory-".length) : event.streamId;
}

export function distinctTerms(terms: string[], max = maxCardTerms): string[] {
  return [...new Set(terms)].slice(0, max);
}

/** Parses an event's data against the catalog; undefined when it is not a known, valid event. */
export function parseEventData<T extends keyof typeof eventSchemas>(
  event: StoredEvent,
  type: T,
): EventData<T> | undefined {
  if (event.type !== type || !isEventType(event.type)) return undefined;
  const parsed = eventSchemas[type].safeParse(event.data);
  return parsed.success ? (parsed.data as EventData<T>) : undefined;
}

function termsOf(title: string, content: string): { terms: string[]; length: number } {
  const terms = scoringTerms(title, content);
  return { terms: distinctTerms(terms), length: terms.length };
}

const statusAfter: Record<string, Status> = {
  "memory.superseded": "superseded",
  "memory.archived": "archived",
  "memory.deleted": "deleted",
  "memory.restored": "active",
  "proposal.promoted": "promoted",
  "proposal.rejected": "rejected",
  "handoff.completed": "completed",
};

/**
 * The card after `event`, or the card unchanged for events that do not touch it.
 * A revision's terms come from its own content.
 */
export function evolveMemoryCard(card: MemoryCard | undefined, event: StoredEvent): MemoryCard | undefined {
  const at = event.meta.recordedAt;
  switch (event.type) {
    case "memory.recorded":
    case "proposal.submitted":
    case "handoff.opened": {
      const data = parseEventData(event, event.type);
      if (!data) return card;
      return {
        id: data.id,
        tenant: event.meta.tenant,
        tier: data.tier,
        status: event.type === "proposal.submitted" ? "pending" : "active",
        scope: data.scope,
        agent: data.agent,
        slot: data.slot,
        title: data.title,
        kind: data.kind,
        sentiment: data.sentiment,
        keys: data.keys,
        entities: data.entities,
        ...termsOf(data.title, data.content),
        createdAt: at,
        updatedAt: at,
      };
    }
    case "memory.revised":
    case "proposal.revised":
    case "handoff.updated": {
      const data = parseEventData(event, event.type);
      if (!data || !card) return card;
      const title = data.title ?? card.title;
      return {
        ...card,
        slot: data.slot ?? card.slot,
        title,
        kind: data.kind ?? card.kind,
        sentiment: data.sentiment ?? card.sentiment,
        keys: data.keys ?? card.keys,
        entities: data.entities ?? card.entities,
        // The card keeps no content, so a title-only change keeps the terms it had.
        ...(data.content === undefined ? {} : termsOf(title, data.content)),
        updatedAt: at,
      };
    }
    case "memory.purged":
      // Erased: nothing made from its text stays (the agent's own labels, keys and slot do).
      return card ? { ...card, title: "", entities: [], terms: [], length: 0, updatedAt: at } : card;
    default: {
      const status = statusAfter[event.type];
      if (!card || status === undefined) return card;
      return { ...card, status, updatedAt: at };
    }
  }
}

/** Confirmed and current: what co-occurrence, key counts and listings are made of. */
export function isLive(card: MemoryCard | undefined): card is MemoryCard {
  return card !== undefined && card.tier === "memory" && card.status === "active";
}

/** Whether `principal` may see the memory: its tenant (or global), and its agent's private ones. */
export function isVisibleTo(card: MemoryCard, principal: Principal): boolean {
  if (card.scope === "global") return true;
  if (card.tenant !== principal.tenant) return false;
  if (card.scope === "agent") return principal.primary || card.agent === principal.agent;
  return true;
}
