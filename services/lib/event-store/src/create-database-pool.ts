import pg from "pg";

export type DatabasePoolOptions = {
  connectionString: string;
  /**
   * Role every connection switches to (`SET ROLE`), so a service runs with the rights of
   * `cairn_app` (SELECT and INSERT on the log) even when its URL names a more powerful user.
   * Empty: keep the login user's rights.
   */
  role?: string | undefined;
  max?: number;
  applicationName?: string;
};

/** The services' role, created by the event-log migration. */
export const serviceDatabaseRole = "cairn_app";

/**
 * A pool whose connections run as the service role; connection errors are reported, not
 * thrown. That holds for a connection taken out of the pool too (a lock or LISTEN session, a
 * transaction): a server that terminates it (`57P01` on shutdown, `ECONNRESET` on a kill)
 * would otherwise emit an `'error'` nobody listens to, which ends the process. The query
 * that needed it fails on its own, and the pool connects anew for the next one.
 */
export function createDatabasePool(options: DatabasePoolOptions, onError?: (error: Error) => void): pg.Pool {
  const role = options.role;
  // The startup `options` string is not SQL: the name goes in as it is, so only plain names.
  if (role && !/^[a-z_][a-z0-9_]*$/.test(role)) throw new Error(`invalid database role name: ${role}`);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
    // `options` is sent at connect time, before the first query can run on the connection.
    ...(role ? { options: `-c role=${role}` } : {}),
  });
  pool.on("error", (error) => onError?.(error));
  pool.on("connect", (client) => client.on("error", (error) => onError?.(error)));
  return pool;
}
