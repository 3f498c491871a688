import { CairnError } from "@cairn/contracts";
import type { ExpectedVersion } from "./append-to-streams.ts";

/** The stream is not at the version the writer expected: someone else wrote first. */
export class VersionConflictError extends CairnError {
  readonly streamId: string;
  readonly expectedVersion: ExpectedVersion;
  readonly actualVersion: number;

  constructor(streamId: string, expectedVersion: ExpectedVersion, actualVersion: number) {
    const expected = expectedVersion === "no_stream" ? "no stream yet" : `version ${expectedVersion}`;
    const actual = actualVersion === 0 ? "does not exist" : `is at version ${actualVersion}`;
    super("version_conflict", `expected ${streamId} at ${expected}, but it ${actual}`, {
      hint: "read the stream again and retry your change against its current version",
      details: { streamId, expectedVersion, actualVersion },
    });
    this.name = "VersionConflictError";
    this.streamId = streamId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/** A reservation key (an active slot, a content hash) is held by another stream. */
export class ReservationTakenError extends Error {
  readonly code = "reservation_taken" as const;
  readonly key: string;
  readonly holderStreamId: string;

  constructor(key: string, holderStreamId: string) {
    super(`reservation ${key} is held by ${holderStreamId}`);
    this.name = "ReservationTakenError";
    this.key = key;
    this.holderStreamId = holderStreamId;
  }
}

/** Some, but not all, of an append's event ids are already in the log: not a clean retry. */
export class EventIdReuseError extends CairnError {
  constructor(eventIds: string[]) {
    super("validation_failed", "some event ids of this append are already in the log, others are not", {
      hint: "a retry must resend exactly the same events; new events need new ids",
      details: { eventIds },
    });
    this.name = "EventIdReuseError";
  }
}

export function isVersionConflictError(error: unknown): error is VersionConflictError {
  return error instanceof VersionConflictError;
}

export function isReservationTakenError(error: unknown): error is ReservationTakenError {
  return error instanceof ReservationTakenError;
}
