import { promises as fs } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Kysely, PostgresDialect } from "kysely";
import { FileMigrationProvider, Migrator } from "kysely/migration";
import pg from "pg";

/** The migrations live in `infra/migrations`, frozen in time, never importing app code. */
export const migrationFolder = fileURLToPath(new URL("../../../../infra/migrations", import.meta.url));

export type MigrationOutcome = { name: string; status: "Success" | "Error" | "NotExecuted" };

/** Brings the database schema to the latest migration; throws with the failing step named. */
export async function migrateToLatest(databaseUrl: string): Promise<MigrationOutcome[]> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // pg-pool's end() resolves before its connections have closed, and an idle connection the
  // server terminates meanwhile (Postgres stopping or restarting) is reported as a pool
  // 'error' event, uncaught without a listener. A failure that matters fails a migration query.
  pool.on("error", () => {});
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    const migrator = new Migrator({
      db,
      provider: new FileMigrationProvider({ fs, path, migrationFolder }),
    });
    const { error, results } = await migrator.migrateToLatest();
    const outcomes = (results ?? []).map((r) => ({ name: r.migrationName, status: r.status }));
    if (error) {
      const failed = outcomes.find((o) => o.status === "Error")?.name ?? "unknown";
      throw new Error(`migration ${failed} failed: ${(error as Error).message}`, { cause: error });
    }
    return outcomes;
  } finally {
    await db.destroy();
  }
}
