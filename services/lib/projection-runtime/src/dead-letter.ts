import type { EventDecodeReason, StoredEvent } from "@cairn/contracts";

/**
 * Why an event was set aside: it could not be decoded (the decode reasons), its projection's
 * fold refused it (`cannot_apply`), its sealed text does not open (`sealed_unreadable`), a
 * delivered message names an event the log does not hold (`not_in_log`), or applying it kept
 * failing while the store was up (`apply_failed`, after the bounded retries).
 */
export type DeadLetterReason =
  | EventDecodeReason
  | "cannot_apply"
  | "sealed_unreadable"
  | "not_in_log"
  | "apply_failed";

/** An event a projection could not apply; recorded, then skipped. */
export type DeadLetter = {
  /** Null when the message was never an event (not JSON, no envelope). */
  event: StoredEvent | null;
  reason: DeadLetterReason;
  error: string;
  /** Deliveries or applications tried before it was set aside. */
  attempts: number;
  /** The raw message when it could not even be read as an event (cut to 10,000 characters). */
  raw?: string;
};
