// Content keys of memories, held outside the append-only log (crypto-shredding). Ingest
// creates a memory's key before its first event and seals the memory's text with it;
// projections read it to open that text. Purging a memory destroys its key: the row stays
// as a tombstone (`key` null, `shredded_at` set) so a reader can tell "purged" from "never
// sealed". Keys never appear in an event, a message or a log line.
//
// A destroyed key survives in dead tuples until vacuum, and in WAL and backups of this table
// for as long as they are kept: autovacuum is made eager here, and backups of this table
// must expire within the erasure deadline (see the maintenance section of the README).
//
// Frozen in time: this file never imports app code and is never edited once released.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`
    create table cairn_memory_keys (
      memory_id uuid primary key,
      tenant text not null,
      key bytea,
      created_at timestamptz not null default now(),
      shredded_at timestamptz,
      constraint cairn_memory_keys_shredded check ((key is null) = (shredded_at is not null)),
      constraint cairn_memory_keys_length check (key is null or octet_length(key) = 32)
    ) with (autovacuum_vacuum_threshold = 1, autovacuum_vacuum_scale_factor = 0)`.execute(db);
  await sql`create index cairn_memory_keys_tenant_idx on cairn_memory_keys (tenant)`.execute(db);

  await sql`
    do $$
    begin
      if not exists (select from pg_roles where rolname = 'cairn_app') then
        create role cairn_app nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $$`.execute(db);
  // Created and destroyed (set to null), never deleted: the tombstone says the memory was purged.
  await sql`grant select, insert, update on cairn_memory_keys to cairn_app`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop table if exists cairn_memory_keys`.execute(db);
}
