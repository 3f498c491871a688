// A memory's encryption key is its seal: "key" in Cairn means a concept key of the key graph.
// The table of content keys becomes `cairn_memory_seals`, its `key` column `seal`; rows,
// tombstones and grants stay as they are.
//
// Frozen in time: this file never imports app code and is never edited once released.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

// The renames in order; down() undoes them the other way round. Columns and constraints are
// renamed while the table is `cairn_memory_seals` both ways.
const renames = [
  ["table", "cairn_memory_keys", "cairn_memory_seals"],
  ["column", "key", "seal"],
  ["constraint", "cairn_memory_keys_shredded", "cairn_memory_seals_shredded"],
  ["constraint", "cairn_memory_keys_length", "cairn_memory_seals_length"],
  ["constraint", "cairn_memory_keys_pkey", "cairn_memory_seals_pkey"],
  ["index", "cairn_memory_keys_tenant_idx", "cairn_memory_seals_tenant_idx"],
] as const;

function rename(what: (typeof renames)[number][0], from: string, to: string) {
  switch (what) {
    case "table":
      return sql`alter table ${sql.id(from)} rename to ${sql.id(to)}`;
    case "column":
      return sql`alter table cairn_memory_seals rename column ${sql.id(from)} to ${sql.id(to)}`;
    case "constraint":
      return sql`alter table cairn_memory_seals rename constraint ${sql.id(from)} to ${sql.id(to)}`;
    case "index":
      return sql`alter index ${sql.id(from)} rename to ${sql.id(to)}`;
  }
}

export async function up(db: Db): Promise<void> {
  for (const [what, from, to] of renames) await rename(what, from, to).execute(db);
}

export async function down(db: Db): Promise<void> {
  for (const [what, from, to] of [...renames].reverse()) await rename(what, to, from).execute(db);
}
