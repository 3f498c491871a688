// Applies the database migrations (infra/migrations) to CAIRN_DATABASE_URL; used by
// `scripts/start` and the compose `migrate` job.
import { run } from "./commands/migrate.ts";

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  console.error(`[cairn] ${(error as Error).message}`);
  process.exitCode = 1;
}
