// A throwaway PostgreSQL cluster (with pgvector) for tests: initdb into a temp dir, postmaster
// on 127.0.0.1 at a free port, unix socket in the same dir. Durability settings are off for
// speed (fsync only; it matters for an OS crash, not a process crash), so kill -9 + restart
// recovers every acknowledged commit from WAL.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { InfraStartError } from "./errors.ts";
import { type ManagedServer, startManagedServer } from "./managed-server.ts";
import {
  assertExecutable,
  childPids,
  describeExit,
  isRoot,
  launchServer,
  makeTempDir,
  type RunAs,
  type RunningServer,
  readLogTail,
  resolveRunAs,
  signalQuietly,
  terminate,
  waitUntilGone,
} from "./server-process.ts";

export const defaultPostgresBinDir = `/usr/lib/postgresql/${process.env.CAIRN_PG_MAJOR ?? "15"}/bin`;

export interface StartPostgresOptions {
  /** Directory with initdb and postgres. Default: $CAIRN_PG_BIN_DIR or /usr/lib/postgresql/${CAIRN_PG_MAJOR:-15}/bin. */
  binDir?: string;
  /** Extra `-c name=value` server settings, applied after the defaults. */
  settings?: Readonly<Record<string, string | number>>;
  /** How long to wait for the server to accept connections (default 30 s). */
  startTimeoutMs?: number;
}

export interface DropDatabaseOptions {
  /** Terminate open connections first (DROP DATABASE ... WITH (FORCE)). */
  force?: boolean;
  /** Skip (and return false) when a connection to the database is open. */
  ifUnused?: boolean;
}

/** kill() takes the postmaster and every backend down, as in a crash; stop() is a clean shutdown. */
export interface PostgresHandle extends ManagedServer {
  /** Superuser, trust authentication: no password. */
  readonly user: string;
  readonly dataDir: string;
  readonly socketDir: string;
  /** postgres://postgres@127.0.0.1:<port>/<dbName> (default database "postgres"). */
  url(dbName?: string): string;
  /** CREATE DATABASE (from template1; `CREATE EXTENSION vector` works in it); returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** DROP DATABASE IF EXISTS; resolves false when skipped because of `ifUnused`. */
  dropDatabase(name: string, options?: DropDatabaseOptions): Promise<boolean>;
}

const databaseNamePattern = /^[a-z_][a-z0-9_]{0,62}$/;

function assertDatabaseName(name: string): void {
  if (!databaseNamePattern.test(name)) {
    throw new Error(
      `Database name ${JSON.stringify(name)} must match ${databaseNamePattern} (lower case, <= 63 chars)`,
    );
  }
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on("error", () => {});
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("PG")) env[key] = value;
  }
  env.LC_ALL = "C";
  return env;
}

// A postmaster killed with -9 leaves its small SysV segment behind; a restart would reuse and
// then free it, but stop() after kill() deletes the data dir, so free it here (best effort).
async function removeOrphanedSharedMemory(dataDir: string): Promise<void> {
  try {
    const lines = (await readFile(join(dataDir, "postmaster.pid"), "utf8")).split("\n");
    const shmid = lines[6]?.trim().split(/\s+/)[1];
    if (shmid === undefined || !/^\d+$/.test(shmid)) return;
    await new Promise<void>((resolve) => execFile("ipcrm", ["-m", shmid], () => resolve()));
  } catch {
    // no pid file, no ipcrm: nothing to do
  }
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresHandle> {
  const binDir = options.binDir ?? process.env.CAIRN_PG_BIN_DIR ?? defaultPostgresBinDir;
  const initdbPath = join(binDir, "initdb");
  const postgresPath = join(binDir, "postgres");
  assertExecutable(initdbPath, "initdb", "CAIRN_PG_BIN_DIR");
  assertExecutable(postgresPath, "postgres", "CAIRN_PG_BIN_DIR");
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const runAs: RunAs | undefined = isRoot() ? resolveRunAs("postgres") : undefined;
  const user = "postgres";
  const host = "127.0.0.1";
  const temp = await makeTempDir("cairn-pg-", runAs);
  const dataDir = join(temp.path, "data");
  const socketDir = temp.path;
  const logFile = join(temp.path, "postgres.log");
  const env = serverEnv();

  // fsync=off only risks data on an OS crash. synchronous_commit stays on: fault tests kill -9
  // the server and expect every acknowledged commit to be there after restart.
  const settings: Record<string, string | number> = {
    fsync: "off",
    shared_buffers: "32MB",
    max_connections: 200,
    max_parallel_workers_per_gather: 0,
    dynamic_shared_memory_type: "mmap",
    jit: "off",
    ...options.settings,
  };
  const urlFor = (port: number, dbName: string) =>
    `postgres://${user}@${host}:${port}/${encodeURIComponent(dbName)}`;

  const launch = (port: number): RunningServer =>
    launchServer({
      name: "postgres",
      command: postgresPath,
      args: [
        "-D",
        dataDir,
        "-p",
        String(port),
        "-h",
        host,
        "-k",
        socketDir,
        ...Object.entries(settings).flatMap(([key, value]) => ["-c", `${key}=${value}`]),
      ],
      cwd: temp.path,
      logFile,
      runAs,
      env,
    });

  const probe = (port: number) =>
    withClient(urlFor(port, "postgres"), async (client) => {
      await client.query("select 1");
      return true;
    });

  const initdb = async () => {
    const exit = await launchServer({
      name: "initdb",
      command: initdbPath,
      args: [
        "-D",
        dataDir,
        "-U",
        user,
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
        "--no-instructions",
      ],
      cwd: temp.path,
      logFile,
      runAs,
      env,
    }).exited;
    if (exit.code !== 0) {
      throw new InfraStartError(
        `initdb ${describeExit(exit)}. Log ${logFile}, last lines:\n${await readLogTail(logFile)}`,
        { logFile },
      );
    }
  };

  const pgvectorWorks = (port: number) =>
    withClient(urlFor(port, "postgres"), async (client) => {
      try {
        await client.query("begin");
        await client.query("create extension vector");
        await client.query("select '[1,2,3]'::vector(3) <-> '[1,2,4]'::vector(3)");
      } catch (cause) {
        throw new InfraStartError(
          `pgvector is not usable in ${binDir}: ${cause instanceof Error ? cause.message : String(cause)}`,
          { logFile, cause },
        );
      } finally {
        await client.query("rollback").catch(() => {});
      }
    });

  // kill -9 of the postmaster and every backend. The postmaster is frozen first so that it
  // cannot fork while its children are collected and killed.
  const crash = async (postmaster: RunningServer): Promise<void> => {
    postmaster.holdEventLoop(true);
    signalQuietly(postmaster.pid, "SIGSTOP");
    const backends = childPids(postmaster.pid);
    for (const pid of backends) signalQuietly(pid, "SIGKILL");
    signalQuietly(postmaster.pid, "SIGKILL");
    await postmaster.exited;
    await waitUntilGone(backends, 5000);
  };

  const managed = await startManagedServer({
    name: "postgres",
    host,
    temp,
    logFile,
    launch,
    probe,
    startTimeoutMs,
    prepare: initdb,
    verify: pgvectorWorks,
    stopSignal: "SIGINT",
    abandon: (server) => terminate(server, "SIGQUIT", 2000),
    crash,
    afterKilled: () => removeOrphanedSharedMemory(dataDir),
  });
  const admin = <T>(fn: (client: pg.Client) => Promise<T>) =>
    withClient(urlFor(managed.port, "postgres"), fn);

  return Object.assign(managed, {
    user,
    dataDir,
    socketDir,
    url: (dbName = "postgres") => urlFor(managed.port, dbName),
    async createDatabase(name: string) {
      assertDatabaseName(name);
      await admin((client) => client.query(`create database "${name}"`));
      return urlFor(managed.port, name);
    },
    async dropDatabase(name: string, dropOptions: DropDatabaseOptions = {}) {
      assertDatabaseName(name);
      return admin(async (client) => {
        if (dropOptions.ifUnused) {
          const open = await client.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where datname = $1",
            [name],
          );
          if ((open.rows[0]?.n ?? 0) > 0) return false;
        }
        await client.query(`drop database if exists "${name}"${dropOptions.force ? " with (force)" : ""}`);
        return true;
      });
    },
  });
}
