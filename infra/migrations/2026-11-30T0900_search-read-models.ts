// The search service's bookkeeping in Postgres: vector read model generations, the pause a
// rebuild sets while it switches, dead-lettered events, and the embedding cache. Everything
// here is derived from the log and can be dropped and rebuilt.
//
// The vector tables themselves (`cairn_search.vectors_g<n>`) are created by the search
// service, one per generation, because their column type depends on the embedding model's
// dimension; that is why `cairn_app` may create tables in this schema (and only here).
//
// Frozen in time: this file never imports app code and is never edited once released.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`create extension if not exists vector`.execute(db);
  await sql`create schema cairn_search`.execute(db);

  await sql`
    create table cairn_search.vector_generations (
      generation integer generated always as identity primary key,
      table_name text not null unique,
      model text not null,
      dimensions integer not null check (dimensions > 0),
      status text not null check (status in ('building', 'active', 'retired')),
      builder text,
      checkpoint bigint not null default 0,
      indexed boolean not null default false,
      created_at timestamptz not null default now(),
      activated_at timestamptz
    )`.execute(db);
  await sql`
    create unique index vector_generations_one_active on cairn_search.vector_generations ((true))
    where status = 'active'`.execute(db);

  await sql`
    create table cairn_search.pauses (
      projection text primary key,
      token text not null,
      until timestamptz not null
    )`.execute(db);

  await sql`
    create table cairn_search.dead_letters (
      id bigint generated always as identity primary key,
      projection text not null,
      generation integer not null,
      position bigint,
      event_id uuid,
      event_type text,
      stream_id text,
      reason text not null,
      error text not null,
      event jsonb,
      recorded_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create unique index dead_letters_once on cairn_search.dead_letters (projection, generation, event_id)
    where event_id is not null`.execute(db);

  await sql`
    create table cairn_search.embedding_cache (
      model text not null,
      text_hash text not null,
      embedding vector not null,
      created_at timestamptz not null default now(),
      primary key (model, text_hash)
    )`.execute(db);

  await sql`
    do $$
    begin
      if not exists (select from pg_roles where rolname = 'cairn_app') then
        create role cairn_app nologin;
      end if;
    exception when duplicate_object or unique_violation then null;
    end
    $$`.execute(db);
  await sql`grant usage, create on schema cairn_search to cairn_app`.execute(db);
  await sql`
    grant select, insert, update, delete on cairn_search.vector_generations, cairn_search.pauses,
      cairn_search.dead_letters, cairn_search.embedding_cache to cairn_app`.execute(db);
  // Vector tables created later by this role (a rebuild run by an operator) stay writable by the service.
  await sql`
    alter default privileges in schema cairn_search
    grant select, insert, update, delete on tables to cairn_app`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop schema if exists cairn_search cascade`.execute(db);
}
