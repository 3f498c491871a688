// A throwaway redis-server with the RediSearch module, on 127.0.0.1 at a free port. No
// persistence unless `appendonly` is asked for (then acknowledged writes survive kill() +
// restart()); restart() waits until it answers PING; stop() is a clean shutdown (SIGTERM).
import { join } from "node:path";
import { firstReply, type ManagedServer, startManagedServer } from "./managed-server.ts";
import { assertExecutable, launchServer, makeTempDir, type RunningServer } from "./server-process.ts";

export const defaultRedisServerPath = "/usr/bin/redis-server";
export const defaultRediSearchModulePath = "/usr/lib/redis/modules/redisearch.so";

/**
 * How Cairn runs the query engine (infra/local/infra.sh and docker-compose.yml say the same):
 * a query that runs out of time fails instead of answering with the matches found so far
 * (the module's default, which would make a recall silently miss memories on a busy machine).
 *
 * On RediSearch 1.x, a query also missed now and then a memory that had not changed while
 * others were being replaced (119 of 120 matches, the next query all 120): `SAFEMODE` keeps
 * the lock for a whole query (by default it runs in a thread and lets writes in when it
 * yields), and `NOGC` turns off the index's garbage collector, whose cleaning of replaced
 * documents' entries made queries miss unchanged ones even in safe mode. Without the collector
 * those entries stay until the next lexical rebuild.
 */
export const rediSearchModuleArgs: readonly string[] = [
  "TIMEOUT",
  "5000",
  "ON_TIMEOUT",
  "FAIL",
  "SAFEMODE",
  "NOGC",
];

export interface StartRedisOptions {
  /** AOF persistence (appendonly yes, fsync everysec), so data survives kill() + restart(). Default false. */
  appendonly?: boolean;
  /** Default: $CAIRN_REDIS_SERVER or /usr/bin/redis-server. */
  redisServerPath?: string;
  /** Default: $CAIRN_REDISEARCH_MODULE or /usr/lib/redis/modules/redisearch.so; null loads no module. */
  modulePath?: string | null;
  /** Arguments for the module after its path. Default: `rediSearchModuleArgs`. */
  moduleArgs?: readonly string[];
  /** Extra `--name value` arguments for redis-server. */
  extraArgs?: readonly string[];
  startTimeoutMs?: number;
}

export interface RedisHandle extends ManagedServer {
  /** redis://127.0.0.1:<port> */
  readonly url: string;
}

/** True when the server answers PING with PONG (not LOADING or an error). */
async function redisAnswersPing(host: string, port: number): Promise<boolean> {
  const received = await firstReply(host, port, { send: "PING\r\n", timeoutMessage: "PING timed out" });
  if (received.startsWith("+PONG")) return true;
  throw new Error(`PING answered ${received.trim()}`);
}

export async function startRedis(options: StartRedisOptions = {}): Promise<RedisHandle> {
  const redisServerPath = options.redisServerPath ?? process.env.CAIRN_REDIS_SERVER ?? defaultRedisServerPath;
  const modulePath =
    options.modulePath === null
      ? undefined
      : (options.modulePath ?? process.env.CAIRN_REDISEARCH_MODULE ?? defaultRediSearchModulePath);
  assertExecutable(redisServerPath, "redis-server", "CAIRN_REDIS_SERVER");
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const host = "127.0.0.1";
  const temp = await makeTempDir("cairn-redis-");
  const logFile = join(temp.path, "redis.log");

  const launch = (port: number): RunningServer =>
    launchServer({
      name: "redis",
      command: redisServerPath,
      args: [
        "--port",
        String(port),
        "--bind",
        host,
        "--dir",
        temp.path,
        "--daemonize",
        "no",
        "--logfile",
        "",
        "--save",
        "",
        "--appendonly",
        options.appendonly ? "yes" : "no",
        ...(modulePath !== undefined
          ? ["--loadmodule", modulePath, ...(options.moduleArgs ?? rediSearchModuleArgs)]
          : []),
        ...(options.extraArgs ?? []),
      ],
      cwd: temp.path,
      logFile,
    });

  const managed = await startManagedServer({
    name: "redis",
    host,
    temp,
    logFile,
    launch,
    probe: (port) => redisAnswersPing(host, port),
    startTimeoutMs,
  });
  return Object.assign(managed, { url: `redis://${host}:${managed.port}` });
}
