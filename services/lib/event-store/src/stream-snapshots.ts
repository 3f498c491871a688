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

type Row = Partial<EventRow> & {
  snapshot: { version: number; position: string; state: unknown } | null;
};

export async function readStreamFromSnapshot(
  db: pg.Pool | pg.ClientBase,
  streamId: string,
  model: string,
): Promise<StreamFromSnapshot> {
  // One round trip: the snapshot (on the first row only) and the events after it. A snapshot
  // holds while the log has the event it names at the position it names.
  const { rows } = await db.query<Row>({
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
