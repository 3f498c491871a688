// Decoding of a stored event (read from the log or delivered by JetStream) into a typed one:
// its envelope and its data are validated against the catalog. What cannot be decoded now
// never will be, so the reason is part of the error for whoever records it.
import type { z } from "zod";
import {
  currentSchemaVersion,
  type EventData,
  type EventType,
  eventSchemas,
  isEventType,
} from "./catalog.ts";
import { type StoredEvent, StoredEventSchema } from "./envelope.ts";

/** A stored event whose `data` matches the catalog, discriminated by `type`. */
export type DecodedEvent = { [T in EventType]: StoredEvent<T, EventData<T>> }[EventType];

/** A decoded event of one of the given types. */
export type DecodedEventOf<T extends EventType> = Extract<DecodedEvent, { type: T }>;

export const eventDecodeReasons = [
  "not_json",
  "bad_envelope",
  "unknown_type",
  "unsupported_version",
  "bad_data",
] as const;
export type EventDecodeReason = (typeof eventDecodeReasons)[number];

export class EventDecodeError extends Error {
  override readonly name = "EventDecodeError";
  readonly reason: EventDecodeReason;
  constructor(reason: EventDecodeReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

export function isEventDecodeError(error: unknown): error is EventDecodeError {
  return error instanceof EventDecodeError;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
}

/** Validates an envelope and its data; throws an EventDecodeError naming why it cannot be read. */
export function decodeStoredEvent(raw: unknown): DecodedEvent {
  const envelope = StoredEventSchema.safeParse(raw);
  if (!envelope.success) {
    throw new EventDecodeError("bad_envelope", `not a stored event: ${firstIssue(envelope.error)}`);
  }
  const event = envelope.data;
  if (!isEventType(event.type)) {
    throw new EventDecodeError(
      "unknown_type",
      `event type ${event.type} is not in this version's catalog; upgrade the service and rebuild its read models`,
    );
  }
  if (event.schemaVersion > currentSchemaVersion[event.type]) {
    throw new EventDecodeError(
      "unsupported_version",
      `${event.type} schema version ${event.schemaVersion} is newer than ${currentSchemaVersion[event.type]}; upgrade the service and rebuild its read models`,
    );
  }
  const data = eventSchemas[event.type].safeParse(event.data);
  if (!data.success) {
    throw new EventDecodeError("bad_data", `${event.type} data is invalid at ${firstIssue(data.error)}`);
  }
  return { ...event, data: data.data } as DecodedEvent;
}

/** Parses the bytes of a message into a decoded event. */
export function decodeEventBytes(bytes: Uint8Array): DecodedEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(bytes));
  } catch (cause) {
    throw new EventDecodeError("not_json", "the message is not valid JSON", { cause });
  }
  return decodeStoredEvent(raw);
}
