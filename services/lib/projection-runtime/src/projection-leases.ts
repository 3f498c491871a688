// Which copy of a service applies which of its projections. Every live projection has a lease:
// a Postgres session advisory lock, held on a connection of the copy's own. The copy holding a
// projection's lease runs its JetStream consumer and its catch-ups from the log; the other
// copies serve reads from the same read model and stand by. A copy takes no more than its share
// of the leases — the service's projections divided by the copies holding a lease connection
// (`pg_stat_activity`), rounded up — so two copies of search apply lexical and vector side by
// side instead of racing each other on both. A copy that goes takes its connection and its
// leases with it; the others take them at their next look (`checkMs`). Without leases, copies
// that catch up at once do the same work twice and only one of them keeps it.
//
// A lease says who works, not what is right: every write to a read model is still a
// compare-and-set on its checkpoint, so a copy that lost its lease while applying (its
// connection cut) cannot make the read model wrong, only waste the batch.
import { createHash } from "node:crypto";
import type { ProjectionName } from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import pg from "pg";

export type ProjectionLeasesOptions = {
  /** For the lease connection (the same database as the log). */
  connectionString: string;
  role?: string | undefined;
  service: string;
  /** This copy's name, shown as the holder of its leases. */
  instance: string;
  names: readonly ProjectionName[];
  /** Starts applying a projection (its lease was just taken). */
  acquired(name: ProjectionName): Promise<void>;
  /** Stops applying it (before its lease is given up, or after the connection that held it broke). */
  released(name: ProjectionName): Promise<void>;
  logger: Logger;
  /** How often the copies and the leases are looked at (default 2 s). */
  checkMs?: number;
};

export type ProjectionLeases = {
  held(): ProjectionName[];
  /** The copy holding each lease (its instance name), or null when none does. */
  holders(): Promise<Record<string, string | null>>;
  stop(): Promise<void>;
};

/** The advisory lock key of a projection's lease (apart from the append, relay and rebuild locks). */
export function leaseKey(name: ProjectionName): bigint {
  return createHash("sha256").update(`cairn-lease:${name}`).digest().readBigInt64BE(0);
}

/** pg_locks splits a bigint advisory key into two 32-bit halves. */
function lockHalves(key: bigint): { classid: number; objid: number } {
  const unsigned = BigInt.asUintN(64, key);
  return { classid: Number(unsigned >> 32n), objid: Number(unsigned & 0xffff_ffffn) };
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export async function startProjectionLeases(options: ProjectionLeasesOptions): Promise<ProjectionLeases> {
  const { names, logger } = options;
  const checkMs = options.checkMs ?? 2000;
  const applicationPrefix = `cairn-leases:${options.service}:`;
  const applicationName = `${applicationPrefix}${options.instance}`.slice(0, 63);
  const held = new Set<ProjectionName>();
  let client: pg.Client | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function lostConnection(): Promise<void> {
    const dropped = client;
    client = undefined;
    await dropped?.end().catch(() => undefined);
    for (const name of [...held]) {
      held.delete(name);
      await options.released(name).catch(() => undefined);
    }
  }

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({
      connectionString: options.connectionString,
      application_name: applicationName,
      ...(options.role ? { options: `-c role=${options.role}` } : {}),
    });
    // A server that goes away emits 'error' on the connection: the leases went with it.
    c.on("error", (error) => {
      if (client !== c) return;
      logger.warn({ err: error.message }, "lost the connection holding projection leases");
      running = running.then(lostConnection);
    });
    await c.connect();
    return c;
  }

  /** One look: how many copies, how many leases this one should hold, take or give up the difference. */
  async function check(): Promise<void> {
    if (stopped) return;
    try {
      client ??= await connect();
      const { rows } = await client.query<{ copies: string }>(
        "select count(*) as copies from pg_stat_activity where application_name like $1",
        [`${applicationPrefix}%`],
      );
      const copies = Math.max(1, Number(rows[0]?.copies ?? 1));
      const share = Math.ceil(names.length / copies);
      for (const name of shuffled(names.filter((n) => !held.has(n)))) {
        if (held.size >= share || stopped) break;
        const { rows: got } = await client.query<{ locked: boolean }>(
          "select pg_try_advisory_lock($1) as locked",
          [leaseKey(name).toString()],
        );
        if (!got[0]?.locked) continue;
        held.add(name);
        logger.info({ projection: name, copies }, "took the projection's lease: applying it here");
        await options.acquired(name);
      }
      // More copies than when these were taken: give the others their share.
      for (const name of [...held].slice(share)) {
        held.delete(name);
        await options.released(name);
        await client.query("select pg_advisory_unlock($1)", [leaseKey(name).toString()]);
        logger.info({ projection: name, copies }, "gave up the projection's lease to another copy");
      }
    } catch (error) {
      logger.warn({ err: (error as Error).message }, "could not look at projection leases; trying again");
      await lostConnection();
    }
  }

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = running.then(check).finally(schedule);
    }, checkMs);
    timer.unref();
  };
  running = running.then(check);
  await running;
  schedule();

  return {
    held: () => [...held],
    async holders() {
      const out: Record<string, string | null> = Object.fromEntries(names.map((n) => [n, null]));
      const c = client;
      if (!c) return out;
      const { rows } = await c.query<{ classid: string; objid: string; application_name: string }>(
        `select l.classid, l.objid, a.application_name
           from pg_locks l join pg_stat_activity a on a.pid = l.pid
          where l.locktype = 'advisory' and l.granted and a.application_name like $1`,
        [`${applicationPrefix}%`],
      );
      for (const name of names) {
        const { classid, objid } = lockHalves(leaseKey(name));
        const row = rows.find((r) => Number(r.classid) === classid && Number(r.objid) === objid);
        if (row) out[name] = row.application_name.slice(applicationPrefix.length);
      }
      return out;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => undefined);
      for (const name of [...held]) {
        held.delete(name);
        await options.released(name).catch(() => undefined);
      }
      // Ending the session gives every lease up at once.
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
