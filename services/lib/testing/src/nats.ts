// A throwaway nats-server with JetStream, on 127.0.0.1 at a free port, its store in a temp dir.
// restart() reuses port and store, so streams, consumers and messages survive kill().
import { connect } from "node:net";
import { join } from "node:path";
import { freePort } from "./free-port.ts";
import {
  assertExecutable,
  killNow,
  launchServer,
  logShowsPortInUse,
  makeTempDir,
  type RunningServer,
  terminate,
  waitUntilReady,
} from "./server-process.ts";

export const defaultNatsServerPath = "/usr/sbin/nats-server";

export interface StartNatsOptions {
  /** Default: $CAIRN_NATS_SERVER or /usr/sbin/nats-server. */
  natsServerPath?: string;
  /** Extra command-line arguments for nats-server. */
  extraArgs?: readonly string[];
  startTimeoutMs?: number;
}

export interface NatsHandle {
  readonly host: string;
  readonly port: number;
  /** nats://127.0.0.1:<port>, usable as `servers` for connect(). */
  readonly url: string;
  readonly dir: string;
  /** JetStream store dir (-sd). */
  readonly storeDir: string;
  readonly logFile: string;
  readonly pid: number | undefined;
  /** kill -9 the server. */
  kill(): Promise<void>;
  /** Start again on the same port and store dir and wait until it accepts clients. */
  restart(): Promise<void>;
  /** Clean shutdown (SIGTERM), then remove the temp dir. Idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** True once the server greets a TCP client with its INFO line (JetStream is enabled before that). */
function natsSendsInfo(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no INFO within 1 s"));
    }, 1000);
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
      if (!received.includes("\r\n")) return;
      clearTimeout(timer);
      socket.destroy();
      if (received.startsWith("INFO ")) resolve(true);
      else reject(new Error(`unexpected greeting ${received.slice(0, 80)}`));
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

export async function startNats(options: StartNatsOptions = {}): Promise<NatsHandle> {
  const natsServerPath = options.natsServerPath ?? process.env.CAIRN_NATS_SERVER ?? defaultNatsServerPath;
  assertExecutable(natsServerPath, "nats-server", "CAIRN_NATS_SERVER");
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const host = "127.0.0.1";
  const temp = await makeTempDir("cairn-nats-");
  const storeDir = join(temp.path, "store");
  const logFile = join(temp.path, "nats.log");

  const launch = (port: number): RunningServer =>
    launchServer({
      name: "nats",
      command: natsServerPath,
      args: ["-js", "-sd", storeDir, "-a", host, "-p", String(port), ...(options.extraArgs ?? [])],
      cwd: temp.path,
      logFile,
    });

  const ready = (server: RunningServer, port: number) =>
    waitUntilReady(server, () => natsSendsInfo(host, port), {
      name: "nats",
      logFile,
      timeoutMs: startTimeoutMs,
    });

  let server: RunningServer | undefined;
  let port = 0;
  try {
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort(host);
      server = launch(port);
      try {
        await ready(server, port);
        break;
      } catch (error) {
        if (attempt < 5 && server.exitInfo() !== undefined && (await logShowsPortInUse(logFile))) continue;
        throw error;
      }
    }
  } catch (error) {
    if (server !== undefined) await killNow(server);
    await temp.remove();
    throw error;
  }

  let state: "running" | "killed" | "stopped" = "running";
  let stopping: Promise<void> | undefined;
  const finalPort = port;
  const handle: NatsHandle = {
    host,
    port: finalPort,
    url: `nats://${host}:${finalPort}`,
    dir: temp.path,
    storeDir,
    logFile,
    get pid() {
      return state === "running" ? server?.pid : undefined;
    },
    async kill() {
      if (state !== "running" || server === undefined) return;
      state = "killed";
      await killNow(server);
    },
    async restart() {
      if (state === "stopped") throw new Error("nats: restart() after stop()");
      if (state === "running" && server !== undefined) await terminate(server, "SIGTERM", 10_000);
      server = launch(finalPort);
      state = "running";
      await ready(server, finalPort);
    },
    stop() {
      stopping ??= (async () => {
        if (state === "running" && server !== undefined) await terminate(server, "SIGTERM", 10_000);
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
