// Snapshots of folded streams (table `cairn_stream_snapshots`): a stream's state at one of its
// versions, so that loading a long stream reads the events after it. Only a shortcut: the
// reader folds the events after the snapshot onto it, a snapshot of another model or whose
// event is not at the position it names is not returned, and losing one costs only time.
import type { StoredEvent } from "@cairn/contracts";
import type pg from "pg";
import { type EventRow, eventColumns, rowToEvent } from "./row-to-event.ts";

export type StreamSnapshot = {
  /** The fold the state was made with (a reader with another one ignores it). */
  model: string;
  version: number;
  /** Log position of the stream's event at `version`. */
  position: number;
  state: unknown;
};

/** A stream's latest snapshot of `model` (null when none holds) and its events after it. */
export type StreamFromSnapshot = { snapshot: StreamSnapshot | null; events: StoredEvent[] };

type Row = Omit<EventRow, "event_id" | "stream_type" | "type" | "schema_version" | "meta"> &
  Partial<EventRow> & { is_snapshot: boolean };

type SingleRow = Partial<EventRow> & {
  snapshot: { version: number; position: string; state: unknown } | null;
};

/** A stream's latest snapshot of `model` that the log backs (null when none does) and its events after it. */
export async function readStreamFromSnapshot(
  db: pg.Pool | pg.ClientBase,
  streamId: string,
  model: string,
): Promise<StreamFromSnapshot> {
  // One round trip: the snapshot (on the first row only) and the events after it. A snapshot
  // holds while the log has the event it names at the position it names.
  const { rows } = await db.query<SingleRow>({
    name: "cairn-read-stream-from-snapshot",
    text: `
      with snap as (
        select s.version, s.position, s.state
          from cairn_stream_snapshots s
         where s.stream_id = $1 and s.model = $2
           and exists (select 1 from cairn_events c
                        where c.stream_id = $1 and c.version = s.version and c.position = s.position)
      ),
      tail as (
        select ${eventColumns} from cairn_events
         where stream_id = $1 and version > coalesce((select version from snap), 0)
      )
      select case when row_number() over (order by t.version) = 1
                  then (select jsonb_build_object('version', version, 'position', position, 'state', state) from snap)
             end as snapshot,
             t.*
        from (select 1) one left join tail t on true
       order by t.version`,
    values: [streamId, model],
  });
  const first = rows[0]?.snapshot ?? null;
  return {
    snapshot: first
      ? { model, version: first.version, position: Number(first.position), state: first.state }
      : null,
    events: rows.filter((row) => row.event_id != null).map((row) => rowToEvent(row as EventRow)),
  };
}

/**
 * Several streams at once, by stream id (every id asked for is in the answer): each one's latest
 * snapshot of `model` that the log backs (null when none does) and its events after it.
 */
export async function readStreamsFromSnapshots(
  db: pg.Pool | pg.ClientBase,
  streamIds: readonly string[],
  model: string,
): Promise<Map<string, StreamFromSnapshot>> {
  const out = new Map<string, StreamFromSnapshot>(
    streamIds.map((id) => [id, { snapshot: null, events: [] }]),
  );
  if (streamIds.length === 0) return out;
  // One round trip: each stream's snapshot as a row of its own (its state where an event has
  // its data), then the events after it. A snapshot holds while the log has the event it
  // names at the position it names.
  const { rows } = await db.query<Row>({
    name: "cairn-read-streams-from-snapshots",
    text: `
      with snap as (
        select s.stream_id, s.version, s.position, s.state
          from cairn_stream_snapshots s
         where s.stream_id = any($1::text[]) and s.model = $2
           and exists (select 1 from cairn_events c
                        where c.stream_id = s.stream_id and c.version = s.version and c.position = s.position)
      )
      select true as is_snapshot, stream_id, version, position, state as data,
             null::uuid as event_id, null::text as stream_type, null::text as type,
             null::integer as schema_version, null::jsonb as meta
        from snap
      union all
      select false, e.stream_id, e.version, e.position, e.data,
             e.event_id, e.stream_type, e.type, e.schema_version, e.meta
        from unnest($1::text[]) as asked(stream_id)
        left join snap s on s.stream_id = asked.stream_id
       cross join lateral (
         -- Per stream, the index's range after its snapshot: the events below it are not read.
         select * from cairn_events c
          where c.stream_id = asked.stream_id and c.version > coalesce(s.version, 0)
       ) e
       order by stream_id, is_snapshot desc, version`,
    values: [[...out.keys()], model],
  });
  for (const row of rows) {
    const read = out.get(row.stream_id);
    if (!read) continue;
    if (row.is_snapshot)
      read.snapshot = { model, version: row.version, position: Number(row.position), state: row.data };
    else read.events.push(rowToEvent(row as EventRow));
  }
  return out;
}

/**
 * Keeps `snapshot` as the stream's, unless one of the same model at a later version that the
 * log backs is kept already.
 */
export async function saveStreamSnapshot(
  db: pg.Pool | pg.ClientBase,
  streamId: string,
  snapshot: StreamSnapshot,
): Promise<void> {
  await db.query({
    name: "cairn-save-stream-snapshot",
    text: `
      insert into cairn_stream_snapshots as s (stream_id, model, version, position, state)
      values ($1, $2, $3, $4, $5)
      on conflict (stream_id) do update
        set model = excluded.model, version = excluded.version, position = excluded.position,
            state = excluded.state, saved_at = now()
        where s.model <> excluded.model or s.version <= excluded.version
           or not exists (select 1 from cairn_events c
                           where c.stream_id = s.stream_id and c.version = s.version and c.position = s.position)`,
    values: [streamId, snapshot.model, snapshot.version, snapshot.position, JSON.stringify(snapshot.state)],
  });
}
