import { currentSchemaVersion, type EventMeta, type NewEvent, type StreamType } from "@cairn/contracts";
import type pg from "pg";
import { EventIdReuseError, ReservationTakenError, VersionConflictError } from "./errors.ts";

/** A stream's version the writer read (1 = one event), no stream yet, or no check at all. */
export type ExpectedVersion = number | "no_stream" | "any";

/**
 * Uniqueness across streams. `claim`: keys this stream must hold after the append (held by
 * another stream: `ReservationTakenError`; already held by this stream: fine). `release`:
 * keys this stream gives up. Releases run before claims, so one append can move a key
 * from one stream to another (a supersede moves the slot to the replacement).
 */
export type Reservations = { claim?: readonly string[]; release?: readonly string[] };

export type AppendInput = {
  streamId: string;
  streamType: StreamType;
  expectedVersion: ExpectedVersion;
  /** May be empty: the append then only asserts the expected version (and reservations). */
  events: readonly NewEvent[];
  meta: EventMeta;
  reservations?: Reservations;
};

export type AppendResult = {
  streamId: string;
  /** The stream's version after the append (its last event's version). */
  nextVersion: number;
  /** The log positions of the appended events, in order. */
  positions: number[];
};

/**
 * Every append takes this transaction-scoped lock before it writes anything, so appends
 * commit one after another: a position is taken only after every lower one has committed
 * or aborted, transaction ids grow in the same order, and a reader's position checkpoint
 * can never step over an event that commits later. The cost is one commit at a time
 * (see `pnpm bench ingest` for what that allows on a machine); the readers' `xmin` guard
 * stays as a second line of defence against any writer that bypasses this function.
 */
export const appendLockKey = 0x4341_4952_4e01n; // "CAIRN" + 1

type ExistingEventRow = {
  kind: "event";
  event_id: string;
  stream_id: string;
  version: number;
  position: string;
};
type StreamVersionRow = {
  kind: "stream";
  event_id: null;
  stream_id: string;
  version: number;
  position: null;
};

function checkExpected(input: AppendInput, actual: number): void {
  const expected = input.expectedVersion;
  if (expected === "any") return;
  if (expected === "no_stream" ? actual !== 0 : actual !== expected) {
    throw new VersionConflictError(input.streamId, expected, actual);
  }
}

/** Results of a retried append, rebuilt from the events it wrote the first time. */
function originalResults(inputs: readonly AppendInput[], existing: ExistingEventRow[]): AppendResult[] {
  const byId = new Map(existing.map((row) => [row.event_id, row]));
  return inputs.map((input) => {
    const rows = input.events.map((e) => byId.get(e.eventId));
    const mismatch = rows.find((row) => row === undefined || row.stream_id !== input.streamId);
    if (mismatch !== undefined || rows.length === 0) {
      throw new EventIdReuseError(input.events.map((e) => e.eventId));
    }
    const found = rows as ExistingEventRow[];
    return {
      streamId: input.streamId,
      nextVersion: Math.max(...found.map((r) => r.version)),
      positions: found.map((r) => Number(r.position)),
    };
  });
}

/**
 * Appends events to one or more streams in one transaction, with optimistic concurrency per
 * stream and the streams' reservations. Idempotent by event id: when every event id is in
 * the log already, nothing is written and the original versions and positions are returned.
 */
export async function appendToStreams(
  pool: pg.Pool,
  inputs: readonly AppendInput[],
): Promise<AppendResult[]> {
  const streamIds = inputs.map((i) => i.streamId);
  if (new Set(streamIds).size !== streamIds.length) {
    throw new Error("appendToStreams: each stream may appear once per append");
  }
  const eventIds = inputs.flatMap((i) => i.events.map((e) => e.eventId));
  if (new Set(eventIds).size !== eventIds.length) throw new Error("appendToStreams: duplicate event ids");

  const client = await pool.connect();
  // A connection whose transaction could not be rolled back is not handed back to the pool.
  let broken: Error | undefined;
  try {
    try {
      await client.query(`begin; select pg_advisory_xact_lock(${appendLockKey})`);
    } catch (error) {
      broken = error as Error;
      throw error;
    }
    try {
      const { rows } = await client.query<ExistingEventRow | StreamVersionRow>(
        `select 'event' as kind, event_id::text, stream_id, version, position
           from cairn_events where event_id = any($1::uuid[])
         union all
         select 'stream', null, stream_id, max(version), null
           from cairn_events where stream_id = any($2::text[]) group by stream_id`,
        [eventIds, streamIds],
      );
      const existing = rows.filter((r): r is ExistingEventRow => r.kind === "event");
      if (existing.length > 0) {
        if (existing.length !== eventIds.length) throw new EventIdReuseError(existing.map((r) => r.event_id));
        const results = originalResults(inputs, existing);
        await client.query("rollback");
        return results;
      }
      const versions = new Map(
        rows.filter((r): r is StreamVersionRow => r.kind === "stream").map((r) => [r.stream_id, r.version]),
      );
      for (const input of inputs) checkExpected(input, versions.get(input.streamId) ?? 0);

      for (const input of inputs) {
        const release = input.reservations?.release ?? [];
        if (release.length > 0) {
          await client.query(
            "delete from cairn_reservations where key = any($1::text[]) and stream_id = $2",
            [release, input.streamId],
          );
        }
      }
      for (const input of inputs) {
        const claim = [...new Set(input.reservations?.claim ?? [])];
        if (claim.length === 0) continue;
        const { rows: holders } = await client.query<{ key: string; stream_id: string }>(
          `with wanted as (select unnest($1::text[]) as key),
                claimed as (
                  insert into cairn_reservations (key, stream_id) select key, $2 from wanted
                  on conflict (key) do nothing returning key)
           select r.key, r.stream_id from cairn_reservations r
            where r.key = any($1::text[]) and not exists (select 1 from claimed c where c.key = r.key)`,
          [claim, input.streamId],
        );
        const taken = holders.find((h) => h.stream_id !== input.streamId);
        if (taken) throw new ReservationTakenError(taken.key, taken.stream_id);
      }

      const columns = {
        eventId: [] as string[],
        streamId: [] as string[],
        streamType: [] as string[],
        version: [] as number[],
        type: [] as string[],
        schemaVersion: [] as number[],
        data: [] as string[],
        meta: [] as string[],
      };
      for (const input of inputs) {
        let version = versions.get(input.streamId) ?? 0;
        const meta = JSON.stringify(input.meta);
        for (const event of input.events) {
          version += 1;
          columns.eventId.push(event.eventId);
          columns.streamId.push(input.streamId);
          columns.streamType.push(input.streamType);
          columns.version.push(version);
          columns.type.push(event.type);
          columns.schemaVersion.push(currentSchemaVersion[event.type]);
          columns.data.push(JSON.stringify(event.data));
          columns.meta.push(meta);
        }
      }
      const positionsById = new Map<string, number>();
      if (columns.eventId.length > 0) {
        const { rows: inserted } = await client.query<{ position: string; event_id: string }>(
          `insert into cairn_events (event_id, stream_id, stream_type, version, type, schema_version, data, meta)
           select e.event_id, e.stream_id, e.stream_type, e.version, e.type, e.schema_version, e.data, e.meta
             from unnest($1::uuid[], $2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::jsonb[], $8::jsonb[])
                  with ordinality as e(event_id, stream_id, stream_type, version, type, schema_version, data, meta, ord)
            order by e.ord
           returning position, event_id::text`,
          [
            columns.eventId,
            columns.streamId,
            columns.streamType,
            columns.version,
            columns.type,
            columns.schemaVersion,
            columns.data,
            columns.meta,
          ],
        );
        for (const row of inserted) positionsById.set(row.event_id, Number(row.position));
      }
      await client.query("commit");
      return inputs.map((input) => ({
        streamId: input.streamId,
        nextVersion: (versions.get(input.streamId) ?? 0) + input.events.length,
        positions: input.events.map((e) => positionsById.get(e.eventId) as number),
      }));
    } catch (error) {
      await client.query("rollback").catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    }
  } finally {
    client.release(broken ?? false);
  }
}
