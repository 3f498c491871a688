import type { StoredEvent } from "@cairn/contracts";

/** The part of the event store a projection reads. */
export type EventLogReader = {
  /** Committed events after a position, in log order, never skipping one that commits late. */
  readAll(options: { after: number; limit: number }): Promise<StoredEvent[]>;
  /** The highest position `readAll` can reach now. */
  lastPosition(): Promise<number>;
  /** The highest committed position, readable yet or not. */
  lastCommittedPosition(): Promise<number>;
  /** The events with these ids that are in the log (committed), whatever the readers' horizon. */
  findEvents(eventIds: readonly string[]): Promise<StoredEvent[]>;
};
