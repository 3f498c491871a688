import type { EventMeta, NewEvent, StoredEvent, StreamType } from "@cairn/contracts";
import type pg from "pg";
import {
  type AppendInput,
  type AppendResult,
  type ExpectedVersion,
  type Reservations,
  traceAppend,
} from "./append-to-streams.ts";
import { findEvents } from "./find-events.ts";
import { createGroupCommit, type GroupCommitOptions, type NewSeal } from "./group-commit.ts";
import { lastCommittedPosition, lastPosition } from "./last-position.ts";
import { positionAt } from "./position-at.ts";
import { readAll } from "./read-all.ts";
import { readStream, readStreams } from "./read-stream.ts";
import { listMemoryStreams, readTenantEvents, readTenantMemories } from "./read-tenant-memories.ts";
import {
  readStreamFromSnapshot,
  readStreamsFromSnapshots,
  type StreamFromSnapshot,
  type StreamSnapshot,
  saveStreamSnapshot,
} from "./stream-snapshots.ts";

export type AppendToStreamInput = {
  streamId: string;
  streamType: StreamType;
  expectedVersion: ExpectedVersion;
  events: NewEvent[];
  meta: EventMeta;
  reservations?: Reservations;
};

/** The Postgres event log: the only truth of Cairn. */
export interface EventStore {
  /** Appends to one stream with optimistic concurrency; idempotent by event id. */
  appendToStream(input: AppendToStreamInput): Promise<{ nextVersion: number; positions: number[] }>;
  /**
   * Appends to several streams in one transaction (all or nothing), with the seals of
   * memories that have none yet (`SealExistsError` when one has). Concurrent appends share
   * a commit (group commit), each with its own checks and answer.
   */
  appendToStreams(
    inputs: readonly AppendInput[],
    options?: { seals?: readonly NewSeal[] },
  ): Promise<AppendResult[]>;
  readStream(streamId: string): Promise<StoredEvent[]>;
  readStreams(streamIds: readonly string[]): Promise<Map<string, StoredEvent[]>>;
  /**
   * A stream's latest snapshot of a fold `model` that still matches the log, and the events
   * after it (all of them without one): what loading a long stream needs to read.
   */
  readStreamFromSnapshot(streamId: string, model: string): Promise<StreamFromSnapshot>;
  /** The same for several streams in one query, by stream id. */
  readStreamsFromSnapshots(
    streamIds: readonly string[],
    model: string,
  ): Promise<Map<string, StreamFromSnapshot>>;
  /** Keeps a folded state of a stream (a later one of the same model wins). Only a shortcut. */
  saveStreamSnapshot(streamId: string, snapshot: StreamSnapshot): Promise<void>;
  /**
   * Every committed event with position > after, in log order, never skipping one that
   * commits late (read below pg_snapshot_xmin(pg_current_snapshot()), ordered by
   * (transaction_id, position)).
   */
  readAll(options: { after: number; limit: number }): Promise<StoredEvent[]>;
  /** Highest position safe to read (what readAll can reach); 0 for an empty log. */
  lastPosition(): Promise<number>;
  /** Highest committed position, readable yet or not (held back by an older open transaction). */
  lastCommittedPosition(): Promise<number>;
  /** The stored events with these ids, in log order (ids not in the log are left out). */
  findEvents(eventIds: readonly string[]): Promise<StoredEvent[]>;
  /** The last position committed at or before a time (0 before the first event). */
  positionAt(time: string): Promise<number>;
  /** Events up to a position of the memory streams a tenant could see (its own and global ones). */
  readTenantMemories(tenant: string, position: number): Promise<StoredEvent[]>;
  /** A page of a tenant's own memory streams in creation order (after a first-event position). */
  listMemoryStreams(
    tenant: string,
    after: number,
    limit: number,
  ): Promise<{ streamId: string; position: number }[]>;
  /** A tenant's own events of these types up to `position`, in log order. */
  readTenantEvents(tenant: string, position: number, types: readonly string[]): Promise<StoredEvent[]>;
}

export function createEventStore(pool: pg.Pool, options: GroupCommitOptions = {}): EventStore {
  const groupCommit = createGroupCommit(pool, options);
  const appendToStreams = (inputs: readonly AppendInput[], seals: readonly NewSeal[] = []) =>
    traceAppend(inputs, () => groupCommit(inputs, seals));
  return {
    async appendToStream(input) {
      const [result] = await appendToStreams([input]);
      return { nextVersion: result?.nextVersion ?? 0, positions: result?.positions ?? [] };
    },
    appendToStreams: (inputs, appendOptions) => appendToStreams(inputs, appendOptions?.seals),
    readStream: (streamId) => readStream(pool, streamId),
    readStreams: (streamIds) => readStreams(pool, streamIds),
    readStreamFromSnapshot: (streamId, model) => readStreamFromSnapshot(pool, streamId, model),
    readStreamsFromSnapshots: (streamIds, model) => readStreamsFromSnapshots(pool, streamIds, model),
    saveStreamSnapshot: (streamId, snapshot) => saveStreamSnapshot(pool, streamId, snapshot),
    readAll: (options) => readAll(pool, options),
    lastPosition: () => lastPosition(pool),
    lastCommittedPosition: () => lastCommittedPosition(pool),
    findEvents: (eventIds) => findEvents(pool, eventIds),
    positionAt: (time) => positionAt(pool, time),
    readTenantMemories: (tenant, position) => readTenantMemories(pool, tenant, position),
    readTenantEvents: (tenant, position, types) => readTenantEvents(pool, tenant, position, types),
    listMemoryStreams: (tenant, after, limit) => listMemoryStreams(pool, tenant, after, limit),
  };
}
