// Key management as `pnpm cairn keys` runs it: with database access, for any tenant. Lives in
// the gateway package (which owns the api_keys table and its pg dependency); the CLI imports it.
import pg from "pg";

export { createApiKey, listApiKeys, revokeApiKey } from "./api-key-store.ts";

export function openKeyDatabase(databaseUrl: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // A server that goes away while the CLI waits fails the query it meets, never the process.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}
