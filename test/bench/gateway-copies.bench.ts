// `pnpm bench gateway-copies [--json] [--requests 1000] [--concurrency 16] [--rounds 3]`
//
// What sharing its state costs the gateway per request, and what a session's first request
// costs on a copy. The gateway runs in this process on real Postgres, NATS and Redis, as one
// copy with its state in memory, one copy with its state in Redis, and two copies on one
// Redis with each request sent to the other copy than the last. Measured, each with one
// client and with `--concurrency` at once:
//
// - `rest`: a request through the whole guard (failed-key check, API key, rate limit) that
//   ends in a validation refusal, so no other service is involved;
// - `mcp`: `ping` in an open MCP session (session lookup, a server for it, the answer);
// - `mcpOpen`: an initialize (a new session and its record).
//
// The setups take turns within each round; each figure is the median over the rounds. The
// JSON line: `{ results: [{ state, copies, rest, mcp, mcpOpen }] }`, each figure
// `{ p50Ms, p99Ms, perSecond }` and `<figure>Concurrent` the same with several clients.
import { cpus, loadavg } from "node:os";
import { type GatewayHarness, startGatewayHarness } from "@cairn/gateway/testing";
import { startNats, startPostgres, startRedis } from "@cairn/testing/servers";
import { checkArgs, wholeNumber } from "./lib/bench-args.ts";
import { type Latency, measure } from "./lib/full-recall.ts";
import { type Row, report } from "./lib/report.ts";

const jsonRpc = (method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

const initialize = jsonRpc("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "bench", version: "1.0.0" },
});

async function post(url: string, key: string, body: string, sessionId?: string): Promise<Response> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(sessionId ? { "mcp-session-id": sessionId } : {}),
    },
    body,
  });
  if (res.status !== 200) throw new Error(`/mcp answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
  return res;
}

type Setup = { state: "memory" | "redis"; copies: GatewayHarness[] };
type FigureName = "rest" | "mcp" | "mcpOpen";
const figureNames: FigureName[] = ["rest", "mcp", "mcpOpen"];

/** The three requests against a setup: each sent to the other copy than the last. */
async function requestsOf(setup: Setup): Promise<Record<FigureName, (i: number) => Promise<void>>> {
  const urls = setup.copies.map((c) => c.baseUrl);
  const key = (setup.copies[0] as GatewayHarness).keys.alice;
  const urlOf = (i: number) => urls[i % urls.length] as string;
  const opened = await post(urlOf(0), key, initialize);
  const sessionId = opened.headers.get("mcp-session-id") as string;
  return {
    rest: async (i) => {
      const res = await fetch(`${urlOf(i)}/v1/memories/not-an-id`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.status !== 422) throw new Error(`expected the validation refusal, got ${res.status}`);
      await res.arrayBuffer();
    },
    // ping: the session's path (lookup, a server, the transport) and nothing of a tool's own.
    mcp: (i) => post(urlOf(i), key, jsonRpc("ping"), sessionId).then(() => {}),
    mcpOpen: (i) => post(urlOf(i), key, initialize).then(() => {}),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** Each figure's median over the rounds (a noisy machine moves all setups alike within a round). */
function medianOf(latencies: Latency[]): Latency {
  return {
    p50Ms: median(latencies.map((l) => l.p50Ms)),
    p99Ms: median(latencies.map((l) => l.p99Ms)),
    perSecond: median(latencies.map((l) => l.perSecond)),
  };
}

export async function run(args: string[]): Promise<void> {
  const usage = "usage: pnpm bench gateway-copies [--requests 1000] [--concurrency 16] [--rounds 3] [--json]";
  if (!checkArgs(args, { usage, values: ["requests", "concurrency", "rounds"] })) return;
  const requests = wholeNumber(args, "requests", 1000);
  const concurrency = wholeNumber(args, "concurrency", 16);
  const rounds = wholeNumber(args, "rounds", 3);
  process.stderr.write("starting Postgres, NATS and Redis...\n");
  const [postgres, nats, redis] = await Promise.all([
    startPostgres(),
    startNats(),
    startRedis({ modulePath: null }),
  ]);
  const started: GatewayHarness[] = [];
  try {
    const databaseUrl = await postgres.createDatabase("bench_gateway");
    const start = async (withRedis: boolean, prefix: string) => {
      const harness = await startGatewayHarness({
        databaseUrl,
        natsUrl: nats.url,
        rateLimit: { perMinute: 1e9, burst: 1e9 },
        authFailures: { limit: 1000, windowMs: 60_000 },
        ...(withRedis ? { redisUrl: redis.url, redisPrefix: prefix } : {}),
      });
      started.push(harness);
      return harness;
    };
    const setups: Setup[] = [
      { state: "memory", copies: [await start(false, "")] },
      { state: "redis", copies: [await start(true, "bench-one:")] },
      { state: "redis", copies: [await start(true, "bench-two:"), await start(true, "bench-two:")] },
    ];
    const requestSets = [];
    for (const setup of setups) requestSets.push(await requestsOf(setup));
    // Rounds, the setups taking turns within each, so drifting load falls on all of them.
    const samples = setups.map(() => ({}) as Record<string, Latency[]>);
    for (let round = 0; round < rounds; round += 1) {
      for (const name of figureNames) {
        const count = name === "mcpOpen" ? Math.max(50, Math.floor(requests / 10)) : requests;
        for (const [s, setup] of setups.entries()) {
          const fn = (requestSets[s] as Record<FigureName, (i: number) => Promise<void>>)[name];
          const label = `round ${round + 1}: ${setup.state}, ${setup.copies.length} cop${setup.copies.length === 1 ? "y" : "ies"}: ${name}`;
          const own = samples[s] as Record<string, Latency[]>;
          const record = (figure: string, latency: Latency) => {
            own[figure] = [...(own[figure] ?? []), latency];
          };
          record(name, await measure(label, count, 1, fn));
          record(`${name}Concurrent`, await measure(`${label} x${concurrency}`, count, concurrency, fn));
        }
      }
    }
    const results = setups.map((setup, s) => ({
      state: setup.state,
      copies: setup.copies.length,
      ...Object.fromEntries(
        Object.entries(samples[s] as Record<string, Latency[]>).map(([name, l]) => [name, medianOf(l)]),
      ),
    })) as ({ state: string; copies: number } & Record<string, Latency>)[];

    const rows: Row[] = results.flatMap((r) =>
      figureNames.flatMap((name) =>
        (["", "Concurrent"] as const).map((suffix) => {
          const figure = r[`${name}${suffix}`] as Latency;
          return {
            state: r.state,
            copies: r.copies,
            request: name,
            clients: suffix ? concurrency : 1,
            p50Ms: figure.p50Ms,
            p99Ms: figure.p99Ms,
            perSecond: Math.round(figure.perSecond),
          };
        }),
      ),
    );
    report(
      `gateway-copies: ${requests} requests per figure and round, median of ${rounds} rounds, ${cpus().length} cores, load ${loadavg()[0]?.toFixed(1)}`,
      rows,
      { requests, concurrency, rounds, cores: cpus().length, load: loadavg()[0], results },
      args,
    );
  } finally {
    for (const harness of started) await harness.close();
    await Promise.all([postgres.stop(), nats.stop(), redis.stop()]);
  }
}
