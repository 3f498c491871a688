// One runner at a time per tenant, across every copy of the service: a Postgres session
// advisory lock, held by a connection of its own for the whole run. If the copy dies, its
// connection goes and the lock with it; no lease to renew, no stale lock to clean up.
import type pg from "pg";

/** "MAIN": the advisory lock class of maintenance runs (the tenant's hash is the object). */
const lockClass = 0x4d41494e;

export type HeldLock = { release(): Promise<void> };

export type TenantLocks = {
  /** The tenant's lock, or undefined when another run (in any copy) holds it. */
  tryAcquire(tenant: string): Promise<HeldLock | undefined>;
};

export function createTenantLocks(pool: pg.Pool): TenantLocks {
  return {
    async tryAcquire(tenant) {
      const client = await pool.connect();
      let held = false;
      try {
        const { rows } = await client.query<{ locked: boolean }>(
          "select pg_try_advisory_lock($1, hashtext($2)) as locked",
          [lockClass, tenant],
        );
        held = rows[0]?.locked === true;
      } finally {
        if (!held) client.release();
      }
      if (!held) return undefined;
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          try {
            await client.query("select pg_advisory_unlock($1, hashtext($2))", [lockClass, tenant]);
            client.release();
          } catch (error) {
            // A connection that cannot unlock is closed: that releases the lock too.
            client.release(error as Error);
          }
        },
      };
    },
  };
}
