// A throwaway PostgreSQL cluster (with pgvector) for tests: initdb into a temp dir, postmaster
// on 127.0.0.1 at a free port, unix socket in the same dir. Durability settings are off for
// speed (fsync only; it matters for an OS crash, not a process crash), so kill -9 + restart
// recovers every acknowledged commit from WAL.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { InfraStartError } from "./errors.ts";
import { freePort } from "./free-port.ts";
import {
  assertExecutable,
  childPids,
  describeExit,
  isRoot,
  launchServer,
  logShowsPortInUse,
  makeTempDir,
  type RunAs,
  type RunningServer,
  readLogTail,
  resolveRunAs,
  signalQuietly,
  terminate,
  waitUntilGone,
  waitUntilReady,
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

export interface PostgresHandle {
  readonly host: string;
  readonly port: number;
  /** Superuser, trust authentication: no password. */
  readonly user: string;
  /** Temp dir holding everything below; removed by stop(). */
  readonly dir: string;
  readonly dataDir: string;
  readonly socketDir: string;
  readonly logFile: string;
  /** Postmaster pid, undefined while killed or stopped. */
  readonly pid: number | undefined;
  /** postgres://postgres@127.0.0.1:<port>/<dbName> (default database "postgres"). */
  url(dbName?: string): string;
  /** CREATE DATABASE (from template1; `CREATE EXTENSION vector` works in it); returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** DROP DATABASE IF EXISTS; resolves false when skipped because of `ifUnused`. */
  dropDatabase(name: string, options?: DropDatabaseOptions): Promise<boolean>;
  /** kill -9 the postmaster and every backend, as in a crash. Data dir and port are kept. */
  kill(): Promise<void>;
  /** Start again on the same port and data dir (after kill(), or a clean restart) and wait until ready. */
  restart(): Promise<void>;
  /** Clean shutdown, then remove the temp dir. Idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
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

  const ready = (server: RunningServer, port: number) =>
    waitUntilReady(
      server,
      () =>
        withClient(urlFor(port, "postgres"), async (client) => {
          await client.query("select 1");
          return true;
        }),
      { name: "postgres", logFile, timeoutMs: startTimeoutMs },
    );

  let server: RunningServer | undefined;
  let port = 0;
  try {
    const initdb = launchServer({
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
    });
    const initExit = await initdb.exited;
    if (initExit.code !== 0) {
      throw new InfraStartError(
        `initdb ${describeExit(initExit)}. Log ${logFile}, last lines:\n${await readLogTail(logFile)}`,
        { logFile },
      );
    }
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort(host);
      server = launch(port);
      try {
        await ready(server, port);
        break;
      } catch (error) {
        // Another process may have taken the port between freePort() and bind().
        if (attempt < 5 && server.exitInfo() !== undefined && (await logShowsPortInUse(logFile))) continue;
        throw error;
      }
    }
    await withClient(urlFor(port, "postgres"), async (client) => {
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
  } catch (error) {
    if (server !== undefined) await terminate(server, "SIGQUIT", 2000);
    await temp.remove();
    throw error;
  }

  let state: "running" | "killed" | "stopped" = "running";
  let stopping: Promise<void> | undefined;
  const finalPort = port;
  const admin = <T>(fn: (client: pg.Client) => Promise<T>) => withClient(urlFor(finalPort, "postgres"), fn);

  const kill = async (): Promise<void> => {
    if (state !== "running" || server === undefined) return;
    const postmaster = server;
    state = "killed";
    // Freeze the postmaster so it cannot fork while its children are collected and killed.
    postmaster.holdEventLoop(true);
    signalQuietly(postmaster.pid, "SIGSTOP");
    const backends = childPids(postmaster.pid);
    for (const pid of backends) signalQuietly(pid, "SIGKILL");
    signalQuietly(postmaster.pid, "SIGKILL");
    await postmaster.exited;
    await waitUntilGone(backends, 5000);
  };

  const handle: PostgresHandle = {
    host,
    port: finalPort,
    user,
    dir: temp.path,
    dataDir,
    socketDir,
    logFile,
    get pid() {
      return state === "running" ? server?.pid : undefined;
    },
    url: (dbName = "postgres") => urlFor(finalPort, dbName),
    async createDatabase(name) {
      assertDatabaseName(name);
      await admin((client) => client.query(`create database "${name}"`));
      return urlFor(finalPort, name);
    },
    async dropDatabase(name, dropOptions = {}) {
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
    kill,
    async restart() {
      if (state === "stopped") throw new Error("postgres: restart() after stop()");
      if (state === "running" && server !== undefined) await terminate(server, "SIGINT", 10_000);
      server = launch(finalPort);
      state = "running";
      await ready(server, finalPort);
    },
    stop() {
      stopping ??= (async () => {
        if (state === "running" && server !== undefined) await terminate(server, "SIGINT", 10_000);
        if (state === "killed") await removeOrphanedSharedMemory(dataDir);
        state = "stopped";
        await temp.remove();
      })();
      return stopping;
    },
    [Symbol.asyncDispose]() {
      return handle.stop();
    },
  };
  return handle;
}
