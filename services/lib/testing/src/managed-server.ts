// The lifecycle Redis and NATS fixtures share: start on a free port (retrying when another
// process takes the port first), then kill -9, restart on the same port and dir, stop.
import { freePort } from "./free-port.ts";
import { killNow, logShowsPortInUse, type RunningServer, type TempDir, terminate } from "./server-process.ts";

export interface ManagedServerSpec {
  name: string;
  host: string;
  temp: TempDir;
  logFile: string;
  launch: (port: number) => RunningServer;
  ready: (server: RunningServer, port: number) => Promise<void>;
}

export interface ManagedServer {
  readonly port: number;
  pid(): number | undefined;
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startManagedServer(spec: ManagedServerSpec): Promise<ManagedServer> {
  const { name, host, temp, logFile, launch, ready } = spec;
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
  return {
    port: finalPort,
    pid: () => (state === "running" ? server?.pid : undefined),
    async kill() {
      if (state !== "running" || server === undefined) return;
      state = "killed";
      await killNow(server);
    },
    async restart() {
      if (state === "stopped") throw new Error(`${name}: restart() after stop()`);
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
  };
}
