// Key management as `pnpm cairn keys` runs it: with database access, for any tenant. Lives in
// the gateway package (which owns the api_keys table and its pg dependency); the CLI imports it.
import pg from "pg";

export { createApiKey, listApiKeys, revokeApiKey } from "./api-key-store.ts";

export function openKeyDatabase(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  pool.on("error", () => {});
  return pool;
}
