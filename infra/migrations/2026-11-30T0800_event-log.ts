// The event log: one append-only table (the truth), the reservation table that keeps
// uniqueness across streams, checkpoints, and the secrets ingest shares between copies.
//
// Frozen in time: this file never imports app code and is never edited once released.
// UPDATE, DELETE and TRUNCATE on the log are refused by triggers (for every role, even a
// superuser) and the role the services use (`cairn_app`) is only granted SELECT and INSERT.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`
    create table cairn_events (
      position bigint generated always as identity primary key,
      transaction_id xid8 not null default pg_current_xact_id(),
      event_id uuid not null,
      stream_id text not null,
      stream_type text not null,
      version integer not null check (version > 0),
      type text not null,
      schema_version integer not null,
      data jsonb not null,
      meta jsonb not null,
      recorded_at timestamptz not null default now(),
      constraint cairn_events_event_id_key unique (event_id),
      constraint cairn_events_stream_version_key unique (stream_id, version)
    )`.execute(db);
  // Readers scan in (transaction_id, position) order below the snapshot's xmin.
  await sql`create index cairn_events_transaction_position_idx on cairn_events (transaction_id, position)`.execute(
    db,
  );

  await sql`
    create function cairn_events_refuse_change() returns trigger language plpgsql as $$
    begin
      raise exception 'cairn_events is append-only: % is refused', tg_op
        using errcode = 'insufficient_privilege',
              hint = 'record a new event (for example memory.deleted) instead of changing the log';
    end
    $$`.execute(db);
  await sql`
    create trigger cairn_events_refuse_update_delete before update or delete on cairn_events
    for each row execute function cairn_events_refuse_change()`.execute(db);
  await sql`
    create trigger cairn_events_refuse_truncate before truncate on cairn_events
    for each statement execute function cairn_events_refuse_change()`.execute(db);

  // Wakes the relay on commit (NOTIFY is delivered only when the transaction commits).
  await sql`
    create function cairn_events_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('cairn_events', '');
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger cairn_events_notify_insert after insert on cairn_events
    for each statement execute function cairn_events_notify()`.execute(db);

  // Uniqueness across streams (an active slot, an identical active content), claimed and
  // released in the same transaction as the append that needs it.
  await sql`
    create table cairn_reservations (
      key text primary key,
      stream_id text not null,
      reserved_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index cairn_reservations_stream_idx on cairn_reservations (stream_id)`.execute(db);

  await sql`
    create table cairn_checkpoints (
      name text primary key,
      position bigint not null,
      updated_at timestamptz not null default now()
    )`.execute(db);

  await sql`
    create table cairn_secrets (
      name text primary key,
      value bytea not null,
      created_at timestamptz not null default now()
    )`.execute(db);

  // Roles are cluster-wide: another database of the cluster may have created it already,
  // possibly at this very moment.
  await sql`
    do $$
    begin
      if not exists (select from pg_roles where rolname = 'cairn_app') then
        create role cairn_app nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $$`.execute(db);
  await sql`grant select, insert on cairn_events to cairn_app`.execute(db);
  await sql`grant select, insert, update, delete on cairn_reservations to cairn_app`.execute(db);
  await sql`grant select, insert, update on cairn_checkpoints to cairn_app`.execute(db);
  await sql`grant select, insert on cairn_secrets to cairn_app`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop table if exists cairn_secrets, cairn_checkpoints, cairn_reservations`.execute(db);
  await sql`drop table if exists cairn_events`.execute(db);
  await sql`drop function if exists cairn_events_notify(), cairn_events_refuse_change()`.execute(db);
}
