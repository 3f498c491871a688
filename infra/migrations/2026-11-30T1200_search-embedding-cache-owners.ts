// The embedding cache remembers which memory each cached embedding was made for, so that
// purging a memory (crypto-shredding its text) also forgets the embeddings of that text:
// an embedding is derived from the text and must not outlive it. The cache is derived data,
// so it is recreated empty rather than migrated.
//
// Frozen in time: this file never imports app code and is never edited once released.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`drop table cairn_search.embedding_cache`.execute(db);
  await sql`
    create table cairn_search.embedding_cache (
      model text not null,
      text_hash text not null,
      memory_id uuid not null,
      embedding vector not null,
      created_at timestamptz not null default now(),
      primary key (model, text_hash, memory_id)
    ) with (autovacuum_vacuum_threshold = 1, autovacuum_vacuum_scale_factor = 0)`.execute(db);
  await sql`create index embedding_cache_memory_idx on cairn_search.embedding_cache (memory_id)`.execute(db);
  await sql`grant select, insert, update, delete on cairn_search.embedding_cache to cairn_app`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop table cairn_search.embedding_cache`.execute(db);
  await sql`
    create table cairn_search.embedding_cache (
      model text not null,
      text_hash text not null,
      embedding vector not null,
      created_at timestamptz not null default now(),
      primary key (model, text_hash)
    )`.execute(db);
}
