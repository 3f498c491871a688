// API keys of the gateway: each maps to a principal (tenant, agent, role, primary). Only the
// SHA-256 of a key is stored. Frozen in time: no app imports, `Kysely<unknown>`.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("api_keys")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("key_prefix", "text", (c) => c.notNull())
    .addColumn("tenant", "text", (c) => c.notNull())
    .addColumn("agent", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull().check(sql`role in ('agent', 'reviewer', 'admin')`))
    .addColumn("is_primary", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("label", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("revoked_at", "timestamptz")
    .execute();
  await db.schema.createIndex("api_keys_tenant_idx").on("api_keys").columns(["tenant", "agent"]).execute();
  // The services' role (created by the event-log migration) reads keys and creates and
  // revokes them; it never deletes one, so a revoked key stays on record.
  await sql`grant select, insert, update on api_keys to cairn_app`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("api_keys").execute();
}
