// A memory's encryption key is its seal: "key" in Cairn means a concept key of the key graph.
// The table of content keys becomes `cairn_memory_seals`, its `key` column `seal`; rows,
// tombstones and grants stay as they are.
//
// Frozen in time: this file never imports app code and is never edited once released.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`alter table cairn_memory_keys rename to cairn_memory_seals`.execute(db);
  await sql`alter table cairn_memory_seals rename column key to seal`.execute(db);
  await sql`alter table cairn_memory_seals rename constraint cairn_memory_keys_shredded to cairn_memory_seals_shredded`.execute(
    db,
  );
  await sql`alter table cairn_memory_seals rename constraint cairn_memory_keys_length to cairn_memory_seals_length`.execute(
    db,
  );
  await sql`alter table cairn_memory_seals rename constraint cairn_memory_keys_pkey to cairn_memory_seals_pkey`.execute(
    db,
  );
  await sql`alter index cairn_memory_keys_tenant_idx rename to cairn_memory_seals_tenant_idx`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter index cairn_memory_seals_tenant_idx rename to cairn_memory_keys_tenant_idx`.execute(db);
  await sql`alter table cairn_memory_seals rename constraint cairn_memory_seals_pkey to cairn_memory_keys_pkey`.execute(
    db,
  );
  await sql`alter table cairn_memory_seals rename constraint cairn_memory_seals_length to cairn_memory_keys_length`.execute(
    db,
  );
  await sql`alter table cairn_memory_seals rename constraint cairn_memory_seals_shredded to cairn_memory_keys_shredded`.execute(
    db,
  );
  await sql`alter table cairn_memory_seals rename column seal to key`.execute(db);
  await sql`alter table cairn_memory_seals rename to cairn_memory_keys`.execute(db);
}
