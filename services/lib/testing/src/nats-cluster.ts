// A throwaway NATS cluster (three nodes unless told otherwise) with JetStream, on 127.0.0.1 at
// free ports: each node has its store in a temp dir and fsyncs every write, as the deployments
// do, and routes to every other node. Ready means every node's /healthz answers 200 (it knows a
// JetStream meta leader) and the meta leader counts every running node among its current
// peers, so a stream can be placed on all of them. A node can be killed (kill -9) and
// restarted on its ports and store, to see what the cluster does without it.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { JetStreamManager } from "@nats-io/jetstream";
import { freePort } from "./free-port.ts";
import { checkedNatsServerPath } from "./nats.ts";
import {
  killNow,
  launchServer,
  logShowsPortInUse,
  makeTempDir,
  type RunningServer,
  terminate,
  waitUntilReady,
} from "./server-process.ts";
import { waitFor } from "./wait-for.ts";

export interface StartNatsClusterOptions {
  /** How many servers (default 3). */
  nodes?: number;
  /** Default: $CAIRN_NATS_SERVER or `defaultNatsServerPath`. Must be nats-server 2.10 or later. */
  natsServerPath?: string;
  /** An `authorization { … }` block for every node (`generateBusAuth().config` from `@cairn/bus`). */
  authorization?: string;
  /**
   * What each node's `cluster { … }` block holds besides its name and listen address, given
   * every node's route address (`127.0.0.1:<port>`). Default: routes to them, without
   * credentials; `natsClusterRoutesConfig` from `@cairn/bus` gives the deployments' form.
   */
  clusterBlock?: (routes: readonly string[]) => string;
  /** How long each node may take to be ready (default 60 s: a meta leader is elected first, and a busy machine is slow at it). */
  startTimeoutMs?: number;
}

export interface NatsClusterNode {
  /** The node's `server_name` (n1, n2, …), as JetStream names its peers. */
  readonly name: string;
  /** nats://127.0.0.1:<port>: this node alone. */
  readonly url: string;
  readonly port: number;
  readonly clusterPort: number;
  /** The monitoring port (/healthz, /jsz, /routez). */
  readonly monitorPort: number;
  readonly logFile: string;
  /** The node's pid; undefined while killed or stopped. */
  readonly pid: number | undefined;
  /** kill -9 the node, as in a crash; its ports and store are kept. */
  kill(): Promise<void>;
  /** Starts the node again on its ports and store, and waits until it is ready. */
  restart(): Promise<void>;
}

export interface NatsClusterHandle {
  readonly nodes: readonly NatsClusterNode[];
  /** Every node's client URL, comma-separated: the form CAIRN_NATS_URL takes for a cluster. */
  readonly url: string;
  /** Temp dir holding every node's files; removed by stop(). */
  readonly dir: string;
  /** Clean shutdown of every node, then remove the temp dir. Idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const host = "127.0.0.1";
const clusterName = "cairn-test";

type NodePorts = { port: number; clusterPort: number; monitorPort: number };

/** Distinct free ports, `count` of them. */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort(host));
  return [...ports];
}

function nodeConfig(
  name: string,
  ports: NodePorts,
  storeDir: string,
  clusterBlock: string,
  authorization?: string,
) {
  return [
    "# Written by the test fixture (services/lib/testing/src/nats-cluster.ts).",
    `server_name: ${name}`,
    `listen: ${host}:${ports.port}`,
    `http: ${host}:${ports.monitorPort}`,
    "jetstream {",
    `  store_dir: ${JSON.stringify(storeDir)}`,
    "  sync_interval: always",
    "}",
    "cluster {",
    `  name: ${clusterName}`,
    `  listen: ${host}:${ports.clusterPort}`,
    clusterBlock
      .trimEnd()
      .split("\n")
      .map((line) => `  ${line}`)
      .join("\n"),
    "}",
    ...(authorization === undefined ? [] : [authorization]),
    "",
  ].join("\n");
}

function plainRoutes(routes: readonly string[]): string {
  return ["routes: [", ...routes.map((route) => `  "nats-route://${route}"`), "]"].join("\n");
}

async function healthy(monitorPort: number): Promise<boolean> {
  const response = await fetch(`http://${host}:${monitorPort}/healthz`, {
    signal: AbortSignal.timeout(1000),
  });
  if (response.ok) return true;
  throw new Error(`/healthz answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
}

type MetaCluster = { leader?: string; replicas?: { name: string; current: boolean }[] };

async function metaCluster(monitorPort: number): Promise<MetaCluster> {
  const response = await fetch(`http://${host}:${monitorPort}/jsz`, { signal: AbortSignal.timeout(1000) });
  if (!response.ok) throw new Error(`/jsz answered ${response.status}`);
  return ((await response.json()) as { meta_cluster?: MetaCluster }).meta_cluster ?? {};
}

/**
 * Whether the JetStream meta group's leader counts `name` and every other running node among
 * its current peers. /healthz answers 200 as soon as a node knows a meta leader, but a node
 * the leader has not yet added is no place for a stream's replica: a stream asking for one
 * replica per node is refused ("no suitable peers for placement") until it is.
 */
async function inMetaGroup(
  name: string,
  monitorPorts: ReadonlyMap<string, number>,
  running: () => readonly string[],
): Promise<boolean> {
  const leader = (await metaCluster(monitorPorts.get(name) as number)).leader;
  const leaderPort = leader === undefined ? undefined : monitorPorts.get(leader);
  if (leader === undefined || leaderPort === undefined) throw new Error(`${name} knows no meta leader`);
  const current = new Set(
    ((await metaCluster(leaderPort)).replicas ?? []).filter((peer) => peer.current).map((peer) => peer.name),
  );
  current.add(leader);
  const missing = [...new Set([...running(), name])].filter((node) => !current.has(node));
  // Thrown, not false: the reason is what a start that times out reports.
  if (missing.length > 0)
    throw new Error(`the meta leader ${leader} does not count ${missing.join(", ")} among its current peers`);
  return true;
}

class PortTakenError extends Error {}

async function startOnce(options: StartNatsClusterOptions): Promise<NatsClusterHandle> {
  const natsServerPath = checkedNatsServerPath(options.natsServerPath);
  const size = options.nodes ?? 3;
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const temp = await makeTempDir("cairn-nats-cluster-");
  const free = await distinctFreePorts(size * 3);
  const ports: NodePorts[] = Array.from({ length: size }, (_, i) => ({
    port: free[i * 3] as number,
    clusterPort: free[i * 3 + 1] as number,
    monitorPort: free[i * 3 + 2] as number,
  }));
  const routes = ports.map((p) => `${host}:${p.clusterPort}`);
  const block = (options.clusterBlock ?? plainRoutes)(routes);

  type Member = {
    node: NatsClusterNode;
    server: RunningServer | undefined;
    state: "running" | "killed" | "stopped";
    launch: () => RunningServer;
    ready: (server: RunningServer) => Promise<void>;
  };
  const members: Member[] = [];
  const monitorPorts = new Map(ports.map((p, i) => [`n${i + 1}`, p.monitorPort]));
  const runningNames = () => members.filter((m) => m.state === "running").map((m) => m.node.name);
  for (const [i, nodePorts] of ports.entries()) {
    const name = `n${i + 1}`;
    const dir = join(temp.path, name);
    await mkdir(dir);
    const configFile = join(dir, "nats.conf");
    const logFile = join(dir, "nats.log");
    await writeFile(
      configFile,
      nodeConfig(name, nodePorts, join(dir, "store"), block, options.authorization),
    );
    const member: Member = {
      server: undefined,
      state: "running",
      launch: () =>
        launchServer({
          name: `nats ${name}`,
          command: natsServerPath,
          args: ["-c", configFile],
          cwd: dir,
          logFile,
        }),
      ready: (server) =>
        waitUntilReady(
          server,
          async () =>
            (await healthy(nodePorts.monitorPort)) && (await inMetaGroup(name, monitorPorts, runningNames)),
          { name: `nats ${name}`, logFile, timeoutMs },
        ),
      node: {
        name,
        url: `nats://${host}:${nodePorts.port}`,
        ...nodePorts,
        logFile,
        get pid() {
          return member.state === "running" ? member.server?.pid : undefined;
        },
        async kill() {
          if (member.state !== "running" || member.server === undefined) return;
          member.state = "killed";
          await killNow(member.server);
        },
        async restart() {
          if (member.state === "stopped") throw new Error(`nats ${name}: restart() after stop()`);
          if (member.state === "running" && member.server !== undefined)
            await terminate(member.server, "SIGTERM", 10_000);
          member.server = member.launch();
          member.state = "running";
          await member.ready(member.server);
        },
      },
    };
    members.push(member);
  }

  // All nodes start before any is waited for: none is ready until a majority has met.
  try {
    for (const member of members) member.server = member.launch();
    await Promise.all(members.map((member) => member.ready(member.server as RunningServer)));
  } catch (error) {
    await Promise.all(members.map((member) => (member.server ? killNow(member.server) : undefined)));
    const portTaken = await Promise.all(members.map((member) => logShowsPortInUse(member.node.logFile)));
    await temp.remove();
    // Another process may have taken a port between freePort() and bind().
    if (portTaken.some(Boolean)) throw new PortTakenError("a port was taken", { cause: error });
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await Promise.all(
        members.map(async (member) => {
          if (member.state === "running" && member.server !== undefined)
            await terminate(member.server, "SIGTERM", 10_000);
          member.state = "stopped";
        }),
      );
      await temp.remove();
    })();
    return stopping;
  };
  const nodes = members.map((member) => member.node);
  return {
    nodes,
    url: nodes.map((node) => node.url).join(","),
    dir: temp.path,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

export async function startNatsCluster(options: StartNatsClusterOptions = {}): Promise<NatsClusterHandle> {
  let startedAgain = false;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (error instanceof PortTakenError && attempt < 5) continue;
      // Seen once on a loaded machine, with another cluster starting beside it: a cluster
      // whose meta group never counted every node in time. A new cluster on new ports, once.
      if (!startedAgain && !(error instanceof PortTakenError) && /not ready after/.test(String(error))) {
        startedAgain = true;
        process.stderr.write(`nats cluster not ready, starting a new one: ${String(error).slice(0, 500)}\n`);
        continue;
      }
      throw error instanceof PortTakenError ? error.cause : error;
    }
  }
}

/**
 * The node leading a stream. On a loaded machine a stream may be between leaders for a moment
 * (a missed heartbeat starts an election), so this waits until one is named (default 30 s).
 */
export async function streamLeader(
  cluster: NatsClusterHandle,
  jsm: JetStreamManager,
  stream: string,
  timeoutMs = 30_000,
): Promise<NatsClusterNode> {
  return waitFor(
    async () => {
      const name = (await jsm.streams.info(stream)).cluster?.leader;
      return cluster.nodes.find((node) => node.name === name) ?? false;
    },
    {
      timeoutMs,
      intervalMs: 250,
      description: `a leader of the stream ${stream} among ${cluster.nodes.map((n) => n.name).join(", ")}`,
    },
  );
}
