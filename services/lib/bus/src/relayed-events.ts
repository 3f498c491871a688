// The messages of the event stream, as the relay writes them and projections read them: the
// events of one commit (see contracts' RelayedEventsSchema).
import { type RelayedEvents, RelayedEventsSchema } from "@cairn/contracts";

/**
 * Headers the relay sets on every message, besides `Nats-Msg-Id` and W3C `traceparent` (the
 * publish span of the message's last event): the position of its last event, and how many
 * events it carries.
 */
export const eventHeaderNames = { position: "Cairn-Position", count: "Cairn-Event-Count" } as const;

/** Decodes a message of the event stream (throws a ZodError on anything else). */
export function decodeRelayedEvents(msg: { json<T>(): T }): RelayedEvents {
  return RelayedEventsSchema.parse(msg.json()) as RelayedEvents;
}
