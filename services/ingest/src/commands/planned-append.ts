import type { CairnEvent, StreamType } from "@cairn/contracts";
import type { ExpectedVersion, Reservations } from "@cairn/event-store";

/** One planned append to a stream, with the id reported for it. */
export type PlannedAppend = {
  id: string;
  streamType: StreamType;
  streamId: string;
  expectedVersion: ExpectedVersion;
  events: CairnEvent[];
  reservations?: Reservations;
  /** The stream's version and last position before this append (for a write that changes nothing). */
  current?: { version: number; position: number };
};
