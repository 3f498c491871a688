// The lookups an append makes (are its event ids in the log, a stream's version, a
// reservation, a seal) use their indexes whatever the tables' statistics say.
//
// PL/pgSQL keeps each statement's plan for the life of a connection, and ingest's connections
// live long. A plan made while the log was small (a new deployment, or any time before
// autovacuum first analysed the table) looked an append's event ids up by reading the whole
// of `cairn_events`, and went on doing so as the log grew, until an analyse replaced it. At
// 12,000 events each lookup read 850 pages (1.2-1.5 ms, against 0.03 ms by the index), and
// under the append lock that time is every writer's: `pnpm bench ingest` spent 0.38 ms of a
// create's 0.67 ms in the function on it. Sequential scans are off inside both functions, so
// every lookup is an index lookup from the first call; nothing else changes.
//
// Frozen in time: never edited once released; a change is a new migration.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`alter function cairn_append_unlocked(jsonb) set enable_seqscan = off`.execute(db);
  await sql`alter function cairn_append_batch(jsonb) set enable_seqscan = off`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`alter function cairn_append_unlocked(jsonb) reset enable_seqscan`.execute(db);
  await sql`alter function cairn_append_batch(jsonb) reset enable_seqscan`.execute(db);
}
