import { z } from "zod";
import { IdSchema, TimestampSchema } from "../memory.ts";

export const streamTypes = ["memory", "key", "tenant", "activity", "maintenance"] as const;
export const StreamTypeSchema = z.enum(streamTypes);
export type StreamType = z.infer<typeof StreamTypeSchema>;

export const EventMetaSchema = z.object({
  tenant: z.string(),
  /** The agent (or service, e.g. `maintenance`) on whose behalf the event was written. */
  actor: z.string(),
  correlationId: z.string(),
  causationId: z.string().nullable(),
  /** W3C trace context (`traceparent`, `tracestate`) of the write. */
  traceContext: z.record(z.string(), z.string()),
  recordedAt: TimestampSchema,
  /**
   * On the events of a command sent with an idempotency key: a digest of that command (who sent
   * it and what it asked) and how many events it wrote. A retry with the same key is answered
   * from those events when its digest is the same, and refused when it is not.
   */
  idempotency: z.object({ fingerprint: z.string(), events: z.number().int().positive() }).optional(),
});
export type EventMeta = z.infer<typeof EventMetaSchema>;

/** An event as stored in the log and published on JetStream. */
export const StoredEventSchema = z.object({
  eventId: IdSchema,
  position: z.number().int().positive(),
  streamId: z.string(),
  streamType: StreamTypeSchema,
  version: z.number().int().positive(),
  type: z.string(),
  schemaVersion: z.number().int().positive(),
  data: z.unknown(),
  meta: EventMetaSchema,
});
export type StoredEvent<T extends string = string, D = unknown> = Omit<
  z.infer<typeof StoredEventSchema>,
  "type" | "data"
> & { type: T; data: D };

/**
 * A message of the event stream: the events one transaction committed, in log order (a large
 * commit is cut into several messages), and for each event the W3C context of the relay's
 * publish span, to which a projection links the work it does for it. JetStream only rings the
 * doorbell; projections read what to apply from the log.
 */
export const RelayedEventsSchema = z.object({
  events: z.array(StoredEventSchema).min(1),
  publishContexts: z.array(z.record(z.string(), z.string())),
});
export type RelayedEvents = { events: StoredEvent[]; publishContexts: Record<string, string>[] };

/** Stream ids are `<streamType>-<id>` so the type is visible in the log. */
export function streamIdFor(streamType: StreamType, id: string): string {
  return `${streamType}-${id}`;
}
