// A throwaway nats-server with JetStream, on 127.0.0.1 at a free port, its store in a temp dir,
// fsyncing every write as the deployments do. restart() reuses port and store, so streams,
// consumers and messages survive kill(); stop() is a clean shutdown (SIGTERM). By default it
// has no authorization (any client connects); `authorization` turns it on for a test.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { InfraStartError, testingErrorCodes } from "./errors.ts";
import { firstReply, type ManagedServer, startManagedServer } from "./managed-server.ts";
import { launchServer, makeTempDir, type RunningServer } from "./server-process.ts";

/**
 * Where `bash infra/local/install-packages.sh` puts nats-server 2.10 (Debian's next release:
 * Debian 12's own /usr/sbin/nats-server is 2.9, which cannot fsync every write).
 */
export const defaultNatsServerPath = fileURLToPath(
  new URL("../../../../.tools/nats-server-2.10/nats-server", import.meta.url),
);

const installHint =
  "run `bash infra/local/install-packages.sh` (it puts nats-server 2.10 into .tools/nats-server-2.10/), " +
  "or set CAIRN_NATS_SERVER to a nats-server 2.10 or later";

export interface StartNatsOptions {
  /** Default: $CAIRN_NATS_SERVER or `defaultNatsServerPath`. Must be nats-server 2.10 or later. */
  natsServerPath?: string;
  /** Extra command-line arguments for nats-server. */
  extraArgs?: readonly string[];
  startTimeoutMs?: number;
  /**
   * An `authorization { … }` block for the config (`generateBusAuth().config` from
   * `@cairn/bus`): clients must then authenticate, with the permissions it gives them.
   */
  authorization?: string;
}

export interface NatsHandle extends ManagedServer {
  /** nats://127.0.0.1:<port>, usable as `servers` for connect(). */
  readonly url: string;
  /** JetStream store dir (`store_dir` in the config file). */
  readonly storeDir: string;
  /** The config file the server runs with (-c): JetStream with `sync_interval: always`. */
  readonly configFile: string;
}

/** True once the server greets a TCP client with its INFO line (JetStream is enabled before that). */
async function natsSendsInfo(host: string, port: number): Promise<boolean> {
  const received = await firstReply(host, port, { timeoutMessage: "no INFO within 1 s" });
  if (received.startsWith("INFO ")) return true;
  throw new Error(`unexpected greeting ${received.slice(0, 80)}`);
}

const checkedServers = new Set<string>();

/**
 * Fails with what to do when the binary is missing or older than 2.10, which would refuse
 * `sync_interval` in the config. Checked once per path and process.
 */
function assertNatsServerVersion(path: string): void {
  if (checkedServers.has(path)) return;
  try {
    accessSync(path, constants.X_OK);
  } catch (cause) {
    throw new InfraStartError(`nats-server not found or not executable at ${path}; ${installHint}`, {
      code: testingErrorCodes.binaryMissing,
      cause,
    });
  }
  const result = spawnSync(path, ["--version"], { encoding: "utf8", timeout: 10_000 });
  const reported = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
  const version = /^nats-server: v(\d+)\.(\d+)\.\d+/.exec(reported);
  if (version === null) {
    throw new InfraStartError(
      `${path} --version does not report a nats-server version (${reported.slice(0, 120) || "no output"}); ${installHint}`,
      { code: testingErrorCodes.binaryMissing, cause: result.error },
    );
  }
  const [major, minor] = [Number(version[1]), Number(version[2])];
  if (major < 2 || (major === 2 && minor < 10)) {
    throw new InfraStartError(
      `${path} is ${reported.split("\n")[0]}; JetStream's \`sync_interval: always\` needs 2.10 or later: ${installHint}`,
      { code: testingErrorCodes.binaryMissing },
    );
  }
  checkedServers.add(path);
}

/** The nats-server to run (`path`, else $CAIRN_NATS_SERVER, else .tools/), checked to be 2.10 or later. */
export function checkedNatsServerPath(path?: string): string {
  const natsServerPath = path ?? process.env.CAIRN_NATS_SERVER ?? defaultNatsServerPath;
  assertNatsServerVersion(natsServerPath);
  return natsServerPath;
}

/** JetStream as in infra/compose/nats/nats.conf: the store on disk, fsynced before every ack. */
function natsConfig(storeDir: string, authorization: string | undefined): string {
  return [
    "# Written by the test fixture (services/lib/testing/src/nats.ts).",
    "jetstream {",
    `  store_dir: ${JSON.stringify(storeDir)}`,
    "  sync_interval: always",
    "}",
    ...(authorization === undefined ? [] : [authorization]),
    "",
  ].join("\n");
}

export async function startNats(options: StartNatsOptions = {}): Promise<NatsHandle> {
  const natsServerPath = checkedNatsServerPath(options.natsServerPath);
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const host = "127.0.0.1";
  const temp = await makeTempDir("cairn-nats-");
  const storeDir = join(temp.path, "store");
  const configFile = join(temp.path, "nats.conf");
  const logFile = join(temp.path, "nats.log");
  await writeFile(configFile, natsConfig(storeDir, options.authorization));

  const launch = (port: number): RunningServer =>
    launchServer({
      name: "nats",
      command: natsServerPath,
      args: ["-c", configFile, "-a", host, "-p", String(port), ...(options.extraArgs ?? [])],
      cwd: temp.path,
      logFile,
    });

  const managed = await startManagedServer({
    name: "nats",
    host,
    temp,
    logFile,
    launch,
    probe: (port) => natsSendsInfo(host, port),
    startTimeoutMs,
  });
  return Object.assign(managed, { url: `nats://${host}:${managed.port}`, storeDir, configFile });
}
