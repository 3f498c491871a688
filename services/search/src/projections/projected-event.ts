// Decoding of what arrives on JetStream (or is read back from the log) into a typed event.
// Anything that cannot be decoded now will never decode: it is a poison event.
import {
  currentSchemaVersion,
  type EventData,
  type EventType,
  eventSchemas,
  isEventType,
  memoryErasureEventSchemas,
  memoryEventSchemas,
  type StoredEvent,
  StoredEventSchema,
} from "@cairn/contracts";

/** A stored event whose `data` was validated against the catalog, typed by `type`. */
export type ProjectedEvent = { [T in EventType]: StoredEvent<T, EventData<T>> }[EventType];

/** Events of memory streams, including the erasure (`memory.purged`). */
export type MemoryEventType = keyof typeof memoryEventSchemas | keyof typeof memoryErasureEventSchemas;
export type MemoryEvent = Extract<ProjectedEvent, { type: MemoryEventType }>;

export const poisonReasons = [
  "not_json",
  "bad_envelope",
  "unknown_type",
  "unsupported_version",
  "bad_data",
] as const;
export type PoisonReason =
  | (typeof poisonReasons)[number]
  | "cannot_apply"
  | "sealed_unreadable"
  | "not_in_log";

/** An event that no retry can apply; it is dead-lettered and skipped. */
export class PoisonEventError extends Error {
  override readonly name = "PoisonEventError";
  readonly reason: PoisonReason;
  constructor(reason: PoisonReason, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
  }
}

export function isPoisonEventError(error: unknown): error is PoisonEventError {
  return error instanceof PoisonEventError;
}

export function isMemoryEvent(event: ProjectedEvent): event is MemoryEvent {
  return (
    Object.hasOwn(memoryEventSchemas, event.type) || Object.hasOwn(memoryErasureEventSchemas, event.type)
  );
}

/** Parses the bytes of a JetStream message into a validated event. */
export function decodeEventBytes(bytes: Uint8Array): ProjectedEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(bytes));
  } catch (cause) {
    throw new PoisonEventError("not_json", "the message is not valid JSON", { cause });
  }
  return decodeEvent(raw);
}

/** Validates an event envelope and its data against the catalog. */
export function decodeEvent(raw: unknown): ProjectedEvent {
  const envelope = StoredEventSchema.safeParse(raw);
  if (!envelope.success) {
    throw new PoisonEventError(
      "bad_envelope",
      `not a stored event: ${envelope.error.issues[0]?.message ?? ""}`,
    );
  }
  const event = envelope.data;
  if (!isEventType(event.type)) {
    throw new PoisonEventError(
      "unknown_type",
      `event type ${event.type} is not in this version's catalog; upgrade the search service and rebuild`,
    );
  }
  if (event.schemaVersion > currentSchemaVersion[event.type]) {
    throw new PoisonEventError(
      "unsupported_version",
      `${event.type} schema version ${event.schemaVersion} is newer than ${currentSchemaVersion[event.type]}; upgrade the search service and rebuild`,
    );
  }
  const data = eventSchemas[event.type].safeParse(event.data);
  if (!data.success) {
    const issue = data.error.issues[0];
    throw new PoisonEventError(
      "bad_data",
      `${event.type} data is invalid at ${issue?.path.join(".") ?? "?"}: ${issue?.message ?? ""}`,
    );
  }
  return { ...event, data: data.data } as ProjectedEvent;
}
