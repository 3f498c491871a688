// The lifecycle every server fixture shares: start on a free port (retrying when another
// process takes the port first), then kill -9, restart on the same port and dir, stop. The
// handle a fixture returns is the managed server with the fields of its own kind added.
import { connect } from "node:net";
import { freePort } from "./free-port.ts";
import {
  killNow,
  logShowsPortInUse,
  type RunningServer,
  type TempDir,
  terminate,
  waitUntilReady,
} from "./server-process.ts";

export interface ManagedServerSpec {
  name: string;
  host: string;
  temp: TempDir;
  logFile: string;
  launch: (port: number) => RunningServer;
  /** True once the server on `port` serves (see `waitUntilReady`). */
  probe: (port: number) => Promise<boolean>;
  startTimeoutMs: number;
  /** Runs before the first launch (initdb); a failure removes the temp dir. */
  prepare?: () => Promise<void>;
  /** Checks the first start once it is ready, before the handle is given out; a failure stops the server. */
  verify?: (port: number) => Promise<void>;
  /** The signal of a clean shutdown (default SIGTERM). */
  stopSignal?: NodeJS.Signals;
  /** How a server that failed to start is stopped (default kill -9). */
  abandon?: (server: RunningServer) => Promise<void>;
  /** How kill() crashes the server (default kill -9 of its process). */
  crash?: (server: RunningServer) => Promise<void>;
  /** Runs before stop() removes the temp dir of a server that was killed and not restarted. */
  afterKilled?: () => Promise<void>;
}

/** What every server fixture's handle offers. */
export interface ManagedServer {
  readonly host: string;
  readonly port: number;
  /** Temp dir holding the server's files; removed by stop(). */
  readonly dir: string;
  readonly logFile: string;
  /** The server's pid; undefined while killed or stopped. */
  readonly pid: number | undefined;
  /** kill -9 the server, as in a crash. Its dir and port are kept. */
  kill(): Promise<void>;
  /** Start again on the same port and dir (after kill(), or a clean restart) and wait until ready. */
  restart(): Promise<void>;
  /** Clean shutdown, then remove the temp dir. Idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startManagedServer(spec: ManagedServerSpec): Promise<ManagedServer> {
  const { name, host, temp, logFile, launch } = spec;
  const ready = (server: RunningServer, port: number) =>
    waitUntilReady(server, () => spec.probe(port), { name, logFile, timeoutMs: spec.startTimeoutMs });
  const stopSignal = spec.stopSignal ?? "SIGTERM";
  let server: RunningServer | undefined;
  let port = 0;
  try {
    await spec.prepare?.();
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
    await spec.verify?.(port);
  } catch (error) {
    if (server !== undefined) await (spec.abandon ?? killNow)(server);
    await temp.remove();
    throw error;
  }

  let state: "running" | "killed" | "stopped" = "running";
  let stopping: Promise<void> | undefined;
  const finalPort = port;
  const stop = () => {
    stopping ??= (async () => {
      if (state === "running" && server !== undefined) await terminate(server, stopSignal, 10_000);
      if (state === "killed") await spec.afterKilled?.();
      state = "stopped";
      await temp.remove();
    })();
    return stopping;
  };
  return {
    host,
    port: finalPort,
    dir: temp.path,
    logFile,
    get pid() {
      return state === "running" ? server?.pid : undefined;
    },
    async kill() {
      if (state !== "running" || server === undefined) return;
      state = "killed";
      await (spec.crash ?? killNow)(server);
    },
    async restart() {
      if (state === "stopped") throw new Error(`${name}: restart() after stop()`);
      if (state === "running" && server !== undefined) await terminate(server, stopSignal, 10_000);
      server = launch(finalPort);
      state = "running";
      await ready(server, finalPort);
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/**
 * What a server first answers on a new TCP connection (after `send`, when given): the data
 * up to its first line end. Rejects on a connection error, or after 1 s with `timeoutMessage`.
 */
export function firstReply(
  host: string,
  port: number,
  options: { send?: string; timeoutMessage: string },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(options.timeoutMessage));
    }, 1000);
    const { send } = options;
    if (send !== undefined) socket.on("connect", () => socket.write(send));
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
      if (!received.includes("\r\n")) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
