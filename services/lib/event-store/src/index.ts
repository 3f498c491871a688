export type { MigrationOutcome } from "./migrate-to-latest.ts";
export { migrateToLatest, migrationFolder } from "./migrate-to-latest.ts";
