// The event stream's replicas (CAIRN_EVENT_STREAM_REPLICAS) against real servers: one replica
// on a single nats-server as before, a clear refusal when the servers cannot keep the copies
// asked for, and, on a three-node JetStream cluster with the bus authenticated and the routes
// protected as the cluster deployment runs it, a stream kept on all three servers that goes on
// taking events while one of them is down, with the projections' consumers on the same three.
import { readFile } from "node:fs/promises";
import {
  type BusAuth,
  connectBus,
  createRoutePassword,
  EventStreamReplicasError,
  ensureEventStream,
  generateBusAuth,
  natsClusterRoutesConfig,
} from "@cairn/bus";
import { eventStreamName, eventSubjectPrefix } from "@cairn/contracts";
import { ingestEnvSchema } from "@cairn/ingest";
import { ensureProjectionConsumer } from "@cairn/projection-runtime";
import { parseEnv } from "@cairn/service-runtime";
import {
  freePort,
  type NatsClusterHandle,
  type NatsHandle,
  startNats,
  startNatsCluster,
  streamLeader,
} from "@cairn/testing";
import {
  type ConsumerInfo,
  JetStreamApiError,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
  type StreamInfo,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const open: NatsConnection[] = [];

async function connectTo(
  url: string,
  credentials: BusAuth["credentials"][keyof BusAuth["credentials"]] | null,
) {
  const nc = await connectBus({
    url,
    name: "event-stream-replicas-test",
    credentials,
    connectTimeoutMs: 10_000,
  });
  open.push(nc);
  return nc;
}

/** The servers that hold a stream or consumer: its leader and its replicas. */
function serversHolding(info: StreamInfo | ConsumerInfo): string[] {
  const cluster = info.cluster;
  if (!cluster) return [];
  const names = new Set(cluster.replicas?.map((peer) => peer.name));
  if (cluster.leader) names.add(cluster.leader);
  return [...names].sort();
}

async function streamIsAbsent(jsm: JetStreamManager): Promise<boolean> {
  try {
    await jsm.streams.info(eventStreamName);
    return false;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === 10059) return true;
    throw error;
  }
}

afterAll(async () => {
  await Promise.all(open.map((nc) => nc.close().catch(() => undefined)));
});

describe("CAIRN_EVENT_STREAM_REPLICAS", () => {
  const env = (value?: string) =>
    value === undefined ? {} : ({ CAIRN_EVENT_STREAM_REPLICAS: value } as NodeJS.ProcessEnv);

  it("is 1 unless set, and takes a whole number from 1 to 5", () => {
    expect(parseEnv(ingestEnvSchema, env()).CAIRN_EVENT_STREAM_REPLICAS).toBe(1);
    expect(parseEnv(ingestEnvSchema, env("3")).CAIRN_EVENT_STREAM_REPLICAS).toBe(3);
    expect(() => parseEnv(ingestEnvSchema, env("7"))).toThrow(
      /CAIRN_EVENT_STREAM_REPLICAS: JetStream keeps at most 5 replicas of a stream/,
    );
    expect(() => parseEnv(ingestEnvSchema, env("0"))).toThrow(/CAIRN_EVENT_STREAM_REPLICAS: .*at least 1/);
    expect(() => parseEnv(ingestEnvSchema, env("2.5"))).toThrow(
      /CAIRN_EVENT_STREAM_REPLICAS: .*whole number/,
    );
    expect(() => parseEnv(ingestEnvSchema, env("three"))).toThrow(/CAIRN_EVENT_STREAM_REPLICAS/);
  });
});

describe("the event stream on a single nats-server", () => {
  let nats: NatsHandle;
  let jsm: JetStreamManager;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectTo(nats.url, null);
    jsm = await jetstreamManager(nc);
  });
  afterAll(async () => {
    await nats?.stop();
  });

  it("refuses three replicas with a clear error and creates no stream", async () => {
    const refused = await ensureEventStream(jsm, { replicas: 3 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EventStreamReplicasError);
    expect(refused).toMatchObject({ code: "event_stream_replicas_unavailable", replicas: 3 });
    expect((refused as Error).message).toMatch(/wants 3 replicas, but NATS is a single server/);
    expect((refused as Error).message).toMatch(/set CAIRN_EVENT_STREAM_REPLICAS to at most/);
    expect(await streamIsAbsent(jsm)).toBe(true);
  });

  it("keeps one replica by default and stores what is published", async () => {
    const info = await ensureEventStream(jsm);
    expect(info.config.num_replicas).toBe(1);
    const ack = await jetstream(nc).publish(`${eventSubjectPrefix}.test`, "{}");
    expect(ack.stream).toBe(eventStreamName);
    expect((await jsm.streams.info(eventStreamName)).state.messages).toBe(1);
  });

  it("refuses to move that stream to three replicas and leaves it as it was", async () => {
    await expect(ensureEventStream(jsm, { replicas: 3 })).rejects.toThrow(
      /wants 3 replicas, but NATS is a single server/,
    );
    const info = await jsm.streams.info(eventStreamName);
    expect(info.config.num_replicas).toBe(1);
    expect(info.state.messages).toBe(1);
  });
});

describe("the event stream on a three-node JetStream cluster", () => {
  let cluster: NatsClusterHandle;
  let auth: BusAuth;
  let ingest: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    auth = generateBusAuth();
    const password = createRoutePassword();
    cluster = await startNatsCluster({
      authorization: auth.config,
      clusterBlock: (routes) => natsClusterRoutesConfig({ password, routes }),
    });
    // The comma-separated form of CAIRN_NATS_URL, as the services take it.
    ingest = await connectTo(cluster.url, auth.credentials.ingest);
    jsm = await jetstreamManager(ingest);
    // A cluster that does not form within its 60 s is started once more on new ports: room
    // for both, which the default hook time (120 s) is not.
  }, 150_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it("the nodes route to each other, and refuse a server without the route password", async () => {
    const remotes = async () => {
      const routez = await fetch(`http://127.0.0.1:${cluster.nodes[0]?.monitorPort}/routez`).then(
        (r) => r.json() as Promise<{ routes: { remote_name: string }[] }>,
      );
      return [...new Set(routez.routes.map((r) => r.remote_name))].sort();
    };
    expect(await remotes()).toEqual(["n2", "n3"]);

    const stranger = await startNats({
      extraArgs: [
        ...["-n", "stranger", "--cluster_name", "cairn-test"],
        ...["--cluster", `nats://127.0.0.1:${await freePort()}`],
        ...["--routes", `nats-route://127.0.0.1:${cluster.nodes[0]?.clusterPort}`],
      ],
    });
    try {
      await expect
        .poll(async () => (await readFile(stranger.logFile, "utf8")).includes("Authorization Violation"), {
          timeout: 20_000,
          interval: 100,
        })
        .toBe(true);
      expect(await remotes()).toEqual(["n2", "n3"]);
    } finally {
      await stranger.stop();
    }
  });

  it("ingest's credentials create it with one replica, and the relay's setting moves it to all three servers", async () => {
    const first = await ensureEventStream(jsm, { replicas: 1 });
    expect(first.config.num_replicas).toBe(1);
    // A projection consumer made while the stream had one replica follows it to three.
    const search = await connectTo(cluster.url, auth.credentials.search);
    const searchJsm = await jetstreamManager(search);
    await ensureProjectionConsumer({
      jsm: searchJsm,
      stream: eventStreamName,
      durable: "search-lexical",
      filterSubject: `${eventSubjectPrefix}.>`,
      ackWaitMs: 30_000,
    });

    const moved = await ensureEventStream(jsm, { replicas: 3 });
    expect(moved.config.num_replicas).toBe(3);
    await expect
      .poll(async () => serversHolding(await jsm.streams.info(eventStreamName)), {
        timeout: 20_000,
        interval: 200,
      })
      .toEqual(["n1", "n2", "n3"]);
    await expect
      .poll(async () => serversHolding(await searchJsm.consumers.info(eventStreamName, "search-lexical")), {
        timeout: 20_000,
        interval: 200,
      })
      .toEqual(["n1", "n2", "n3"]);
  });

  it("a projection consumer made on the replicated stream is kept on the same three servers", async () => {
    const ranking = await connectTo(cluster.url, auth.credentials.ranking);
    const rankingJsm = await jetstreamManager(ranking);
    await ensureProjectionConsumer({
      jsm: rankingJsm,
      stream: eventStreamName,
      durable: "ranking-signals",
      filterSubject: `${eventSubjectPrefix}.>`,
      ackWaitMs: 30_000,
    });
    // Its leader is elected just after it is made: until then fewer servers are listed.
    await expect
      .poll(async () => serversHolding(await rankingJsm.consumers.info(eventStreamName, "ranking-signals")), {
        timeout: 20_000,
        interval: 200,
      })
      .toEqual(["n1", "n2", "n3"]);
  });

  it("refuses five replicas on three servers with a clear error and stays on three", async () => {
    const refused = await ensureEventStream(jsm, { replicas: 5 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EventStreamReplicasError);
    expect((refused as Error).message).toMatch(
      /wants 5 replicas, but the JetStream cluster has no 5 servers/,
    );
    const info = await jsm.streams.info(eventStreamName);
    expect(info.config.num_replicas).toBe(3);
  });

  // Its time is its polls' (an election, then a restart and a catch-up), not the default minute,
  // which a full run of the suite on a busy 2-core machine has gone past (9 s when run alone).
  it("goes on taking events, in order and without loss, while the server that led it is down", async () => {
    const js = jetstream(ingest);
    const before = (await jsm.streams.info(eventStreamName)).state.last_seq;
    const leader = await streamLeader(cluster, jsm, eventStreamName);
    const leaderName = leader.name;
    await leader.kill();

    // The two servers left elect a new leader; until then a publish is not acknowledged.
    const acked: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      await expect
        .poll(
          async () => {
            const ack = await js
              .publish(`${eventSubjectPrefix}.test`, JSON.stringify({ i }), {
                msgID: `down-${i}`,
                timeout: 2000,
              })
              .catch(() => undefined);
            if (ack) acked.push(ack.seq);
            return ack !== undefined;
          },
          { timeout: 30_000, interval: 250 },
        )
        .toBe(true);
    }
    expect(acked).toEqual([1, 2, 3, 4, 5].map((n) => before + n));
    const during = await jsm.streams.info(eventStreamName);
    expect(during.cluster?.leader).not.toBe(leaderName);
    expect(during.state.last_seq).toBe(before + 5);

    // Back, the server catches up with what was written without it.
    await leader.restart();
    await expect
      .poll(
        async () => {
          const info = await jsm.streams.info(eventStreamName);
          return (
            info.cluster?.replicas?.find((peer) => peer.name === leaderName)?.current ??
            info.cluster?.leader === leaderName
          );
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);
  }, 150_000);
});
