export type { AppendInput, AppendResult, ExpectedVersion, Reservations } from "./append-to-streams.ts";
export { appendLockKey, appendToStreams } from "./append-to-streams.ts";
export { readCheckpoint, storeCheckpoint } from "./checkpoints.ts";
export type { DatabasePoolOptions } from "./create-database-pool.ts";
export { createDatabasePool, serviceDatabaseRole } from "./create-database-pool.ts";
export {
  EventIdReuseError,
  isReservationTakenError,
  isVersionConflictError,
  ReservationTakenError,
  VersionConflictError,
} from "./errors.ts";
export type { AppendToStreamInput, EventStore } from "./event-store.ts";
export { createEventStore } from "./event-store.ts";
export { findEvents } from "./find-events.ts";
export type { GroupCommitOptions, NewSeal } from "./group-commit.ts";
export { isSealExistsError, SealExistsError } from "./group-commit.ts";
export { lastCommittedPosition, lastPosition } from "./last-position.ts";
export type { MemorySealStore } from "./memory-seals.ts";
export { createMemorySealStore } from "./memory-seals.ts";
export type { MigrationOutcome } from "./migrate-to-latest.ts";
export { migrateToLatest, migrationFolder } from "./migrate-to-latest.ts";
export { positionAt } from "./position-at.ts";
export type { CommittedEvent } from "./read-all.ts";
export { readAll, readCommitted } from "./read-all.ts";
export { readStream, readStreams } from "./read-stream.ts";
export { listMemoryStreams, readTenantEvents, readTenantMemories } from "./read-tenant-memories.ts";
export type { TimelineQuery } from "./read-timeline.ts";
export { readTimeline } from "./read-timeline.ts";
export type { StreamFromSnapshot, StreamSnapshot } from "./stream-snapshots.ts";

/** The channel an append notifies on commit (payload empty): LISTEN to wake a reader. */
export const appendNotificationChannel = "cairn_events";
