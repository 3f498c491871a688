import { createServer } from "node:net";
import { cpus, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { call } from "@cairn/bus";
import { type Principal, type RetrievalMode, searchRpcs } from "@cairn/contracts";
import { createEventStore, migrateToLatest, storeCheckpoint } from "@cairn/event-store";
import { createApiKey } from "@cairn/gateway";
import { rebuildFromHost } from "@cairn/projection-runtime";
import { openRankingProjections, rankingEnvSchema } from "@cairn/ranking";
import { openReadModels, projectionHostOf, searchEnvSchema } from "@cairn/search";
import { parseEnv } from "@cairn/service-runtime";
import { createLogger } from "@cairn/telemetry";
import { startNats, startPostgres, startRedis } from "@cairn/testing/servers";
import { connect } from "@nats-io/transport-node";
import pg from "pg";
import { type ServiceProcess, spawnService } from "../helpers/service-processes.ts";
import {
  agents,
  appendInput,
  memory,
  pick,
  queryText,
  random,
  seedLog,
  tenants,
} from "./lib/bench-memories.ts";
import { cpuMsOf, type Latency, mcpClient, mcpTool, measure, restSearch, rssMb } from "./lib/full-recall.ts";
import { cpuReferenceMs } from "./lib/machine.ts";
import {
  hotFunctions,
  profilingEnv,
  resetStatementStats,
  type StatementStat,
  spanTimings,
  statementStatsSettings,
  topStatements,
} from "./lib/profiles.ts";
import { formatTable, percentile, progress, type Row, report } from "./lib/report.ts";

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
}

function positive(args: string[], name: string, fallback: number): number {
  const value = Number(option(args, name, String(fallback)));
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer`);
  return value;
}

type SizeResult = {
  memories: number;
  seedSeconds: number;
  rebuild: {
    lexical: number;
    vector: number;
    lexicalSeconds: number;
    vectorSeconds: number;
    signals: number;
    keys: number;
  };
  query: Record<RetrievalMode, { p50: number; p99: number; avgCandidates: number }>;
  fullRecall: {
    rest: Latency;
    mcp: Latency;
    context: Latency;
    concurrent: Latency & { clients: number };
  };
  /** Resident memory at the end of the run: live data and garbage not collected yet. */
  rssMb: Record<string, number | null>;
  /** The most each process was resident at any time of the run (Linux's VmHWM). */
  peakRssMb: Record<string, number | null>;
  /**
   * CPU time each process spent per full recall (REST search, 1 client), the recall record's
   * writing and projection included: unlike latency, hardly moved by other load on the machine.
   */
  cpuMsPerRecall: Record<string, number | null>;
  writeToSearchable: { p50: number; p99: number };
  /** With `--profile`: the Postgres statements that took the most time in the query phases. */
  statements?: StatementStat[];
};

/** A free TCP port on this machine. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Waits until a service process logs that it is ready (or fails). */
async function ready(service: ServiceProcess, marker: RegExp): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!service.logs.some((l) => marker.test(l))) {
    if (service.child.exitCode !== null)
      throw new Error(`${service.name} exited:\n${service.logs.slice(-20).join("\n")}`);
    if (Date.now() > deadline)
      throw new Error(`${service.name} not ready:\n${service.logs.slice(-20).join("\n")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function benchSize(
  size: number,
  queries: number,
  writes: number,
  profileDir: string | null,
): Promise<SizeResult> {
  const silent = createLogger("bench", "silent");
  // Postgres as a deployment would size it: the HNSW index in shared buffers (the test
  // fixture's default is 32 MB).
  const [postgres, redis, nats] = await Promise.all([
    startPostgres({
      settings: { shared_buffers: "1GB", ...(profileDir === null ? {} : statementStatsSettings) },
    }),
    startRedis(),
    startNats(),
  ]);
  const stops: (() => Promise<unknown>)[] = [() => postgres.stop(), () => redis.stop(), () => nats.stop()];
  try {
    const databaseUrl = await postgres.createDatabase("bench");
    await migrateToLatest(databaseUrl);
    const env = {
      CAIRN_DATABASE_URL: databaseUrl,
      CAIRN_REDIS_URL: redis.url,
      CAIRN_NATS_URL: nats.url,
      CAIRN_REDIS_PREFIX: "bench:",
      CAIRN_LOG_LEVEL: "warn",
      CAIRN_METRICS_PORT: "off",
    };
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    pool.on("error", (error) => console.error(`bench pool: ${error.message}`));
    stops.unshift(() => pool.end());
    const store = createEventStore(pool);

    // 1. Seed the log: the rows ingest would write, inserted in bulk (ingest's own write rate
    // is `pnpm bench ingest`; here it would only make the seeding slow).
    const rand = random(size);
    let started = performance.now();
    const batch = 1000;
    for (let done = 0; done < size; done += batch) {
      const inputs = Array.from({ length: Math.min(batch, size - done) }, (_, i) =>
        appendInput(memory(rand, done + i)),
      );
      await seedLog(pool, inputs);
      progress(`seed ${size}`, Math.min(done + batch, size), size, started);
    }
    const seedSeconds = (performance.now() - started) / 1000;

    // 2. Rebuild both read models from the log into empty ones.
    const models = await openReadModels(parseEnv(searchEnvSchema, env), silent);
    const rebuildRate = async (name: "lexical" | "vector") => {
      const t0 = performance.now();
      const result = await rebuildFromHost(projectionHostOf(models), `search.${name}`, {
        batchSize: 500,
        dropDelayMs: 0,
        onProgress: (p) =>
          progress(`rebuild ${name} ${size}`, Math.min(p.position, p.target), p.target, p.startedAt),
      });
      const seconds = (performance.now() - t0) / 1000;
      return { rate: result.events / seconds, seconds };
    };
    const lexical = await rebuildRate("lexical");
    const vector = await rebuildRate("vector");
    await models.close();

    // 3. Ranking's read models, the same way.
    const ranking = openRankingProjections(parseEnv(rankingEnvSchema, env), silent);
    const rankingRate = async (name: "signals" | "keys") => {
      const t0 = performance.now();
      const result = await rebuildFromHost(ranking, `ranking.${name}`, {
        batchSize: 500,
        dropDelayMs: 0,
        onProgress: (p) =>
          progress(`rebuild ${name} ${size}`, Math.min(p.position, p.target), p.target, p.startedAt),
      });
      return result.events / ((performance.now() - t0) / 1000);
    };
    const signals = await rankingRate("signals");
    const keys = await rankingRate("keys");
    await ranking.close();

    // 4. The services as processes; the relay publishes new writes from here on.
    await storeCheckpoint(pool, "relay:jetstream", await store.lastPosition());
    const port = await freePort();
    const serviceEnv = {
      ...env,
      CAIRN_LOG_LEVEL: "info",
      CAIRN_PORT: String(port),
      CAIRN_RATE_LIMIT_PER_MINUTE: "1000000",
      CAIRN_RATE_LIMIT_BURST: "100000",
      CAIRN_MAINTENANCE_SCHEDULER: "0",
    };
    const processes: ServiceProcess[] = [];
    stops.unshift(async () => {
      for (const p of processes.reverse()) await p.stop();
    });
    for (const [name, marker] of [
      ["ingest", /service started/],
      ["search", /service started/],
      ["ranking", /service started/],
      ["gateway", /service started/],
    ] as const) {
      const service = spawnService(name, {
        ...serviceEnv,
        ...(profileDir === null ? {} : profilingEnv(join(profileDir, String(size)), name)),
      });
      processes.push(service);
      await ready(service, marker);
    }
    const nc = await connect({ servers: nats.url });
    stops.unshift(() => nc.close());
    const baseUrl = `http://127.0.0.1:${port}`;
    const keysOf = new Map<string, string>();
    for (const tenant of tenants) {
      const created = await createApiKey(pool, { tenant, agent: pick(rand, agents), role: "agent" });
      keysOf.set(tenant, created.key);
    }

    if (profileDir !== null) await resetStatementStats(pool);

    const principal = (): Principal => ({
      tenant: pick(rand, tenants),
      agent: pick(rand, agents),
      role: "agent",
      primary: false,
    });
    const query: SizeResult["query"] = {} as SizeResult["query"];
    for (const mode of ["lexical", "vector", "hybrid"] as const) {
      for (let i = 0; i < 50; i += 1) {
        await call(nc, searchRpcs.candidates, {
          principal: principal(),
          query: queryText(rand),
          mode,
        });
      }
      const samples: number[] = [];
      let found = 0;
      started = performance.now();
      for (let i = 0; i < queries; i += 1) {
        const t0 = performance.now();
        const reply = await call(nc, searchRpcs.candidates, {
          principal: principal(),
          query: queryText(rand),
          mode,
        });
        samples.push(performance.now() - t0);
        found += reply.candidates.length;
        progress(`${mode} queries ${size}`, i + 1, queries, started);
      }
      query[mode] = {
        p50: percentile(samples, 50),
        p99: percentile(samples, 99),
        avgCandidates: found / queries,
      };
    }

    // 5. The full recall through the gateway, as a user waits for it.
    const tenantKey = () => keysOf.get(pick(rand, tenants)) as string;
    const pids: Record<string, number | undefined> = {
      ...Object.fromEntries(processes.map((p) => [p.name, p.child.pid])),
      redis: redis.pid,
      postgres: postgres.pid,
      nats: nats.pid,
    };
    const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
    const rest = await measure(`REST search ${size}`, queries, 1, () =>
      restSearch(baseUrl, tenantKey(), queryText(rand)),
    );
    // `measure` warms up with up to 20 calls first: they count too.
    const recalls = queries + Math.min(20, queries);
    const cpuMsPerRecall = Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => {
        const before = cpuBefore[name];
        const after = cpuMsOf(pid);
        const per =
          before === null || before === undefined || after === null ? null : (after - before) / recalls;
        return [name, per === null ? null : Math.round(per * 100) / 100];
      }),
    );
    const sessions = await Promise.all(
      tenants.map(async (t) => [t, await mcpClient(baseUrl, keysOf.get(t) as string)] as const),
    );
    stops.unshift(async () => {
      for (const [, client] of sessions) await client.close().catch(() => undefined);
    });
    const session = () => (sessions[Math.floor(rand() * sessions.length)] as (typeof sessions)[number])[1];
    const mcp = await measure(`MCP memory_search ${size}`, queries, 1, () =>
      mcpTool(session(), "memory_search", { query: queryText(rand) }),
    );
    const context = await measure(`MCP memory_context ${size}`, queries, 1, () =>
      mcpTool(session(), "memory_context", { task: queryText(rand) }),
    );
    const clients = 16;
    const concurrent = await measure(`REST search x${clients} ${size}`, queries * 2, clients, () =>
      restSearch(baseUrl, tenantKey(), queryText(rand)),
    );
    const rss = Object.fromEntries(processes.map((p) => [p.name, rssMb(p.child.pid)]));
    const statements = profileDir === null ? undefined : await topStatements(pool);
    if (profileDir !== null) for (const p of processes) p.child.kill("SIGUSR2");

    // 6. Write to searchable: append, relay, both projections, answered by the service.
    const samples: number[] = [];
    started = performance.now();
    for (let i = 0; i < writes; i += 1) {
      const t0 = performance.now();
      const [written] = await store.appendToStreams([appendInput(memory(rand, size + i))]);
      const position = written?.positions[0] as number;
      await call(
        nc,
        searchRpcs.status,
        { afterPosition: position, waitTimeoutMs: 30_000 },
        { timeoutMs: 35_000 },
      );
      samples.push(performance.now() - t0);
      progress(`writes ${size}`, i + 1, writes, started);
    }
    return {
      memories: size,
      seedSeconds,
      rebuild: {
        lexical: lexical.rate,
        vector: vector.rate,
        lexicalSeconds: lexical.seconds,
        vectorSeconds: vector.seconds,
        signals,
        keys,
      },
      query,
      fullRecall: { rest, mcp, context, concurrent: { ...concurrent, clients } },
      rssMb: rss,
      peakRssMb: Object.fromEntries(processes.map((p) => [p.name, rssMb(p.child.pid, "peak")])),
      cpuMsPerRecall,
      writeToSearchable: { p50: percentile(samples, 50), p99: percentile(samples, 99) },
      ...(statements === undefined ? {} : { statements }),
    };
  } finally {
    for (const stop of stops) await stop().catch(() => undefined);
  }
}

/** Where the services spent their CPU and Postgres its time (with `--profile`). */
function printProfiles(dir: string, results: SizeResult[]): void {
  for (const r of results) {
    for (const service of ["gateway", "search", "ranking", "ingest"]) {
      const hot = hotFunctions(join(dir, String(r.memories), service), 20);
      console.log(`\n${service} at ${r.memories}: ${hot.totalMs} ms sampled`);
      console.log(
        formatTable(hot.modules.map((m) => ({ self_ms: m.selfMs, "%": m.share, module: m.where }))),
      );
      console.log(
        formatTable(hot.functions.map((f) => ({ self_ms: f.selfMs, "%": f.share, function: f.where }))),
      );
      const spans = spanTimings(join(dir, String(r.memories), service));
      console.log(
        formatTable(
          spans.map((s) => ({
            span: s.name,
            count: s.count,
            p50_ms: s.p50Ms,
            mean_ms: s.meanMs,
            total_ms: s.totalMs,
          })),
        ),
      );
    }
    console.log(`\nPostgres statements at ${r.memories} (query phases)`);
    console.log(
      formatTable(
        (r.statements ?? []).map((s) => ({
          calls: s.calls,
          total_ms: s.totalMs,
          mean_ms: s.meanMs,
          query: s.query,
        })),
      ),
    );
  }
  console.log(`\nprofiles and heap snapshots: ${dir}`);
}

export async function run(args: string[]): Promise<void> {
  if (args.includes("--help")) {
    console.log(
      "usage: pnpm bench search [--sizes 10000,100000] [--queries 200] [--writes 100] [--profile DIR] [--json]",
    );
    return;
  }
  const sizes = option(args, "sizes", "10000,100000")
    .split(",")
    .map((s) => Number(s.trim()));
  if (sizes.some((s) => !Number.isInteger(s) || s <= 0))
    throw new Error("--sizes takes positive integers, e.g. 10000,100000");
  const queries = positive(args, "queries", 200);
  const writes = positive(args, "writes", 100);
  const profile = option(args, "profile", "");
  const profileDir = profile === "" ? null : resolve(profile);

  // Before anything starts: what this machine's cores do, for comparing runs across machines.
  const cpuReference = cpuReferenceMs();
  const results: SizeResult[] = [];
  for (const size of sizes) results.push(await benchSize(size, queries, writes, profileDir));
  if (profileDir !== null) printProfiles(profileDir, results);

  const ms = (n: number) => Math.round(n * 10) / 10;
  const rows: Row[] = results.flatMap((r) => [
    ...(["lexical", "vector", "hybrid"] as const).map((mode) => ({
      memories: r.memories,
      measure: `${mode} query (k=50)`,
      p50_ms: ms(r.query[mode].p50),
      p99_ms: ms(r.query[mode].p99),
      rate: "",
    })),
    ...(
      [
        ["full recall: REST search (1 client)", r.fullRecall.rest],
        ["full recall: MCP memory_search", r.fullRecall.mcp],
        ["full recall: MCP memory_context", r.fullRecall.context],
        [`full recall: REST search (${r.fullRecall.concurrent.clients} clients)`, r.fullRecall.concurrent],
      ] as const
    ).map(([measure, l]) => ({
      memories: r.memories,
      measure,
      p50_ms: ms(l.p50Ms),
      p99_ms: ms(l.p99Ms),
      rate: `${Math.round(l.perSecond)}/s`,
    })),
    {
      memories: r.memories,
      measure: "write to searchable",
      p50_ms: ms(r.writeToSearchable.p50),
      p99_ms: ms(r.writeToSearchable.p99),
      rate: "",
    },
    {
      memories: r.memories,
      measure: "rebuild lexical",
      p50_ms: "",
      p99_ms: "",
      rate: `${Math.round(r.rebuild.lexical)} events/s`,
    },
    {
      memories: r.memories,
      measure: "rebuild vector (incl. HNSW)",
      p50_ms: "",
      p99_ms: "",
      rate: `${Math.round(r.rebuild.vector)} events/s`,
    },
    {
      memories: r.memories,
      measure: "rebuild ranking signals / keys",
      p50_ms: "",
      p99_ms: "",
      rate: `${Math.round(r.rebuild.signals)} / ${Math.round(r.rebuild.keys)} events/s`,
    },
    {
      memories: r.memories,
      measure: "CPU ms per recall (REST, 1 client)",
      p50_ms: "",
      p99_ms: "",
      rate: Object.entries(r.cpuMsPerRecall)
        .map(([name, ms]) => `${name} ${ms ?? "?"}`)
        .join(", "),
    },
    {
      memories: r.memories,
      measure: "resident memory (MB)",
      p50_ms: "",
      p99_ms: "",
      rate: Object.entries(r.rssMb)
        .map(([name, mb]) => `${name} ${mb ?? "?"} (peak ${r.peakRssMb[name] ?? "?"})`)
        .join(", "),
    },
  ]);
  report(
    `search: ${queries} queries per mode, ${writes} writes; ${cpus().length} CPUs (reference work ${cpuReference} ms), ${Math.round(totalmem() / 2 ** 30)} GiB; local embedder (384 dims); RediSearch 1.2, pgvector 0.8 HNSW`,
    rows,
    { bench: "search", queries, writes, cpuReferenceMs: cpuReference, results },
    args,
  );
}
