// A throwaway nats-server with JetStream, on 127.0.0.1 at a free port, its store in a temp dir.
// restart() reuses port and store, so streams, consumers and messages survive kill().
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

  const managed = await startManagedServer({ name: "nats", host, temp, logFile, launch, ready });
  const handle: NatsHandle = {
    host,
    port: managed.port,
    url: `nats://${host}:${managed.port}`,
    dir: temp.path,
    storeDir,
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
