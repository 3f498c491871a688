// The service role writes the log only through `cairn_append`, which takes positions and the
// transaction id under its lock: that is what keeps position order and transaction order
// equal, and readers' position checkpoints safe. So `cairn_app` loses its direct INSERT on
// `cairn_events`, and `cairn_append` runs with its owner's rights (security definer, with a
// fixed search_path). UPDATE, DELETE and TRUNCATE stay refused by the triggers for everyone.
//
// Frozen in time: never edited once released; a change is a new migration.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`revoke insert on cairn_events from cairn_app`.execute(db);
  await sql`alter function cairn_append(jsonb) security definer set search_path = pg_catalog, public, pg_temp`.execute(
    db,
  );
  await sql`revoke execute on function cairn_append(jsonb) from public`.execute(db);
  await sql`grant execute on function cairn_append(jsonb) to cairn_app`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter function cairn_append(jsonb) security invoker reset search_path`.execute(db);
  await sql`grant insert on cairn_events to cairn_app`.execute(db);
}
