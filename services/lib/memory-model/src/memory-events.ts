// The events of a memory stream (tiers memory, proposal and handoff) as one closed set, and
// the per-tier names of its creation and revision, so that every service switches over the
// same list and a new event type fails to compile wherever it is not handled.
import {
  type DecodedEvent,
  type DecodedEventOf,
  memoryErasureEventSchemas,
  memoryEventSchemas,
  type Status,
  type Tier,
} from "@cairn/contracts";

export type MemoryEventType = keyof typeof memoryEventSchemas | keyof typeof memoryErasureEventSchemas;

/** A decoded event of a memory stream, including the erasure (`memory.purged`). */
export type MemoryEvent = DecodedEventOf<MemoryEventType>;

export const memoryEventTypes: readonly MemoryEventType[] = [
  ...(Object.keys(memoryEventSchemas) as (keyof typeof memoryEventSchemas)[]),
  ...(Object.keys(memoryErasureEventSchemas) as (keyof typeof memoryErasureEventSchemas)[]),
];

const memoryEventTypeSet: ReadonlySet<string> = new Set(memoryEventTypes);

export function isMemoryEventType(type: string): type is MemoryEventType {
  return memoryEventTypeSet.has(type);
}

export function isMemoryEvent(event: DecodedEvent): event is MemoryEvent {
  return memoryEventTypeSet.has(event.type);
}

/** The event that creates a stream of each tier. */
export const recordedEventType = {
  memory: "memory.recorded",
  proposal: "proposal.submitted",
  handoff: "handoff.opened",
} as const satisfies Record<Tier, MemoryEventType>;

/** The event that changes the body of a stream of each tier. */
export const revisedEventType = {
  memory: "memory.revised",
  proposal: "proposal.revised",
  handoff: "handoff.updated",
} as const satisfies Record<Tier, MemoryEventType>;

/** The status a stream of each tier starts in. */
export const initialStatus = {
  memory: "active",
  proposal: "pending",
  handoff: "active",
} as const satisfies Record<Tier, Status>;
