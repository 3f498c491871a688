// A stream's folded state at one of its versions, kept so that loading a stream with many
// versions reads the events after it, not all of them (an update of a memory revised a
// thousand times read a thousand events). A snapshot is only a shortcut: the log stays the
// truth, a snapshot whose event is no longer where it says (another log restored into this
// database) or whose model is not the reader's is ignored, and dropping every row changes
// nothing but speed. Sealed text stays sealed in it, as in the log.
//
// Frozen in time: never edited once released; a change is a new migration.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`
    create table cairn_stream_snapshots (
      stream_id text primary key,
      -- The fold (and document shape) the state was made with; readers skip other models.
      model text not null,
      version integer not null check (version > 0),
      -- The log position of the stream's event at that version: the snapshot holds while it matches.
      position bigint not null,
      state jsonb not null,
      saved_at timestamptz not null default now()
    )`.execute(db);
  await sql`grant select, insert, update, delete on cairn_stream_snapshots to cairn_app`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop table if exists cairn_stream_snapshots`.execute(db);
}
