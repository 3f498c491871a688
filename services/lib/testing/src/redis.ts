// A throwaway redis-server with the RediSearch module, on 127.0.0.1 at a free port. No
// persistence unless `appendonly` is asked for (then writes survive kill() + restart()).
import { connect } from "node:net";
import { join } from "node:path";
import { startManagedServer } from "./managed-server.ts";
import {
  assertExecutable,
  launchServer,
  makeTempDir,
  type RunningServer,
  waitUntilReady,
} from "./server-process.ts";

export const defaultRedisServerPath = "/usr/bin/redis-server";
export const defaultRediSearchModulePath = "/usr/lib/redis/modules/redisearch.so";

export interface StartRedisOptions {
  /** AOF persistence (appendonly yes, fsync everysec), so data survives kill() + restart(). Default false. */
  appendonly?: boolean;
  /** Default: $CAIRN_REDIS_SERVER or /usr/bin/redis-server. */
  redisServerPath?: string;
  /** Default: $CAIRN_REDISEARCH_MODULE or /usr/lib/redis/modules/redisearch.so; null loads no module. */
  modulePath?: string | null;
  /** Extra `--name value` arguments for redis-server. */
  extraArgs?: readonly string[];
  startTimeoutMs?: number;
}

export interface RedisHandle {
  readonly host: string;
  readonly port: number;
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  readonly dir: string;
  readonly logFile: string;
  readonly pid: number | undefined;
  /** kill -9 the server. With `appendonly`, acknowledged writes survive. */
  kill(): Promise<void>;
  /** Start again on the same port and dir and wait until it answers PING. */
  restart(): Promise<void>;
  /** SHUTDOWN-equivalent (SIGTERM), then remove the temp dir. Idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** True when the server answers PING with PONG (not LOADING or an error). */
function redisAnswersPing(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("PING timed out"));
    }, 1000);
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
      if (!received.includes("\r\n")) return;
      clearTimeout(timer);
      socket.destroy();
      if (received.startsWith("+PONG")) resolve(true);
      else reject(new Error(`PING answered ${received.trim()}`));
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
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
        ...(modulePath !== undefined ? ["--loadmodule", modulePath] : []),
        ...(options.extraArgs ?? []),
      ],
      cwd: temp.path,
      logFile,
    });

  const ready = (server: RunningServer, port: number) =>
    waitUntilReady(server, () => redisAnswersPing(host, port), {
      name: "redis",
      logFile,
      timeoutMs: startTimeoutMs,
    });

  const managed = await startManagedServer({ name: "redis", host, temp, logFile, launch, ready });
  const handle: RedisHandle = {
    host,
    port: managed.port,
    url: `redis://${host}:${managed.port}`,
    dir: temp.path,
    logFile,
    get pid() {
      return managed.pid();
    },
    kill: () => managed.kill(),
    restart: () => managed.restart(),
    stop: () => managed.stop(),
    [Symbol.asyncDispose]() {
      return managed.stop();
    },
  };
  return handle;
}
