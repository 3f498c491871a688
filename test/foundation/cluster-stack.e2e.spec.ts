// Cairn on a three-node NATS JetStream cluster, as docker-compose.cluster.yml runs it: the bus
// authenticated, the routes protected by a route password, every service given the three
// servers in CAIRN_NATS_URL, and ingest keeping the event stream on all three
// (CAIRN_EVENT_STREAM_REPLICAS=3). The stream and every projection's consumer are on the three
// servers; with the server that led the stream killed, memories are still written and found;
// and no server refused anything a service did.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  busSeedFile,
  connectBus,
  createRoutePassword,
  natsClusterRoutesConfig,
  writeBusAuthFiles,
} from "@cairn/bus";
import { eventStreamName } from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import {
  freePort,
  type NatsClusterHandle,
  startNatsCluster,
  startPostgres,
  startRedis,
  streamLeader,
  waitFor,
} from "@cairn/testing";
import {
  type ConsumerInfo,
  type JetStreamManager,
  jetstreamManager,
  type StreamInfo,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRequest } from "../helpers/gateway-client.ts";
import { type ServiceProcess, spawnAllServices } from "../helpers/service-processes.ts";

const adminKey = "cairn_cluster-e2e-admin-key-0123456789abcd";
const allThree = ["n1", "n2", "n3"];

let infra: { stop: () => Promise<void> }[] = [];
let cluster: NatsClusterHandle;
let all: ServiceProcess;
let authDir: string;
let baseUrl: string;
let operator: NatsConnection;
let jsm: JetStreamManager;

const rest = (method: string, path: string, body?: unknown) =>
  restRequest(baseUrl, adminKey, { method, path, ...(body === undefined ? {} : { body }) });

/** The servers that hold a stream or consumer: its leader and its replicas. */
function serversHolding(info: StreamInfo | ConsumerInfo): string[] {
  const names = new Set(info.cluster?.replicas?.map((peer) => peer.name));
  if (info.cluster?.leader) names.add(info.cluster.leader);
  return [...names].sort();
}

beforeAll(async () => {
  authDir = await mkdtemp(join(tmpdir(), "cairn-bus-auth-"));
  const { configFile } = await writeBusAuthFiles(authDir);
  const password = createRoutePassword();
  const [pg, redis, nats] = await Promise.all([
    startPostgres(),
    startRedis(),
    startNatsCluster({
      authorization: await readFile(configFile, "utf8"),
      clusterBlock: (routes) => natsClusterRoutesConfig({ password, routes }),
    }),
  ]);
  cluster = nats;
  infra = [pg, redis, cluster];
  await migrateToLatest(pg.url("postgres"));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  all = spawnAllServices({
    CAIRN_DATABASE_URL: pg.url("postgres"),
    CAIRN_REDIS_URL: redis.url,
    CAIRN_NATS_URL: cluster.url,
    CAIRN_EVENT_STREAM_REPLICAS: "3",
    CAIRN_PORT: String(port),
    CAIRN_ADMIN_KEY: adminKey,
    CAIRN_DEFAULT_TENANT: "acme",
    CAIRN_NATS_AUTH_DIR: authDir,
  });
  try {
    await waitFor(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200, {
      timeoutMs: 90_000,
      intervalMs: 300,
      description: "/readyz answering 200",
    });
  } catch (error) {
    const natsLogs = await Promise.all(
      cluster.nodes.map(async (node) => {
        const lines = (await readFile(node.logFile, "utf8").catch(() => "")).trimEnd().split("\n");
        return `nats ${node.name}:\n${lines.slice(-15).join("\n")}`;
      }),
    );
    throw new Error(`Cairn did not start:\n${all.logs.slice(-40).join("\n")}\n${natsLogs.join("\n")}`, {
      cause: error,
    });
  }
  operator = await connectBus({
    url: cluster.url,
    name: "cluster-e2e-operator",
    credentials: { user: "admin", seed: (await readFile(busSeedFile(authDir, "admin"), "utf8")).trim() },
  });
  jsm = await jetstreamManager(operator);
}, 240_000);

afterAll(async () => {
  await operator?.close().catch(() => undefined);
  await all?.stop("SIGTERM");
  await Promise.all(infra.map((i) => i.stop()));
  if (authDir) await rm(authDir, { recursive: true, force: true });
});

describe("Cairn on a three-node NATS cluster", () => {
  it("keeps the event stream and every projection's consumer on all three servers", async () => {
    // The relay ensures the stream once it runs; the first write makes sure it has.
    const created = await rest("POST", "/v1/memories", {
      slot: "cluster/first",
      content: "The stream has three replicas.",
    });
    expect(created.status, await created.clone().text()).toBe(201);

    await expect
      .poll(async () => serversHolding(await jsm.streams.info(eventStreamName)), {
        timeout: 30_000,
        interval: 250,
      })
      .toEqual(allThree);
    expect((await jsm.streams.info(eventStreamName)).config.num_replicas).toBe(3);

    // Each projection makes its consumer once the stream is there (until then it retries).
    for (const consumer of [
      "search-lexical",
      "search-vector",
      "ranking-signals",
      "ranking-keys",
      "maintenance-view",
    ]) {
      await expect
        .poll(
          async () =>
            serversHolding(
              await jsm.consumers.info(eventStreamName, consumer).catch(() => ({}) as ConsumerInfo),
            ),
          { timeout: 30_000, interval: 250 },
        )
        .toEqual(allThree);
    }
  });

  it("writes and finds memories while the server that led the event stream is down", async () => {
    const leader = await streamLeader(cluster, jsm, eventStreamName);
    // Left down for the rest of the file: what a server does when it comes back is for
    // test/foundation/event-stream-replicas.int.spec.ts.
    await leader.kill();
    // A service connected to the killed server reconnects to another within moments; a
    // request in between is a 503 with Retry-After, and a client sends it again with the same
    // idempotency key.
    let created: Response | undefined;
    await expect
      .poll(
        async () => {
          created = await restRequest(baseUrl, adminKey, {
            method: "POST",
            path: "/v1/memories",
            body: { slot: "cluster/leader-down", content: "Written while the stream's leader was down." },
            headers: { "Idempotency-Key": "cluster-leader-down" },
          });
          if (created.status !== 201)
            expect([503, 504], await created.clone().text()).toContain(created.status);
          return created.status;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(201);
    if (!created) throw new Error("no answer to the write");
    const { id, position } = (await created.json()) as { id: string; position: number };
    // Found once the two servers left have a new leader and the relay has published it.
    await expect
      .poll(
        async () => {
          const found = await rest("GET", `/v1/memories?q=leader&afterPosition=${position}`);
          return found.status === 200 && JSON.stringify(await found.json()).includes(id);
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);
  });

  it("was refused nothing it needed, on any server", async () => {
    for (const node of cluster.nodes) {
      const log = await readFile(node.logFile, "utf8");
      expect(
        log.split("\n").filter((line) => /violation/i.test(line)),
        node.name,
      ).toEqual([]);
    }
  });
});
