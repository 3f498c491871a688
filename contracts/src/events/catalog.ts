import type { z } from "zod";
import type { StreamType } from "./envelope.ts";
import { maintenanceEventSchemas, memoryErasureEventSchemas } from "./maintenance-events.ts";
import { memoryEventSchemas } from "./memory-events.ts";
import { activityEventSchemas, keyEventSchemas, tenantEventSchemas } from "./other-events.ts";

/** Every event type Cairn writes, with the stream type it belongs to. */
export const eventSchemas = {
  ...memoryEventSchemas,
  ...keyEventSchemas,
  ...activityEventSchemas,
  ...tenantEventSchemas,
  ...memoryErasureEventSchemas,
  ...maintenanceEventSchemas,
} as const;

export type EventType = keyof typeof eventSchemas;
export type EventData<T extends EventType> = z.infer<(typeof eventSchemas)[T]>;
export const eventTypes = Object.keys(eventSchemas) as EventType[];

export const currentSchemaVersion: Record<EventType, number> = Object.fromEntries(
  eventTypes.map((t) => [t, 1]),
) as Record<EventType, number>;

export function streamTypeOf(type: EventType): StreamType {
  if (type in memoryEventSchemas || type in memoryErasureEventSchemas) return "memory";
  if (type in keyEventSchemas) return "key";
  if (type in activityEventSchemas) return "activity";
  if (type in maintenanceEventSchemas) return "maintenance";
  return "tenant";
}

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(eventSchemas, type);
}

/** A new event before the log assigns its position and version. */
export type NewEvent<T extends EventType = EventType> = {
  eventId: string;
  type: T;
  data: EventData<T>;
};

/** Union of all events with `type` discriminating `data`, for exhaustive switches. */
export type CairnEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/** The JetStream stream the relay publishes the log on, under subjects `cairn.evt.>`. */
export const eventStreamName = "CAIRN_EVENTS";
export const eventSubjectPrefix = "cairn.evt";
/** The subject the relay publishes on: one message per commit (see RelayedEventsSchema). */
export const relaySubject = `${eventSubjectPrefix}.log`;
