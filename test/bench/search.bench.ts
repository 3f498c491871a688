import { cpus, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { call } from "@cairn/bus";
import { type Principal, type RetrievalMode, searchRpcs } from "@cairn/contracts";
import { connect } from "@nats-io/transport-node";
import { checkArgs, option, wholeNumber, wholeNumbers } from "./lib/bench-args.ts";
import { agents, appendInput, memory, pick, queryText, tenants } from "./lib/bench-memories.ts";
import { countCpu, type Latency, mcpClient, mcpTool, measure, restSearch, rssMb } from "./lib/full-recall.ts";
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
import {
  freePort,
  type SeededDeployment,
  seededDeployment,
  startRecallServices,
  stopServices,
} from "./lib/seeded-deployment.ts";

type SizeResult = {
  memories: number;
  seedSeconds: number;
  rebuild: SeededDeployment["rebuild"];
  query: Record<RetrievalMode, { p50: number; p99: number; avgCandidates: number }>;
  fullRecall: {
    /**
     * The first `--warmup` REST recalls after the services started, not counted in the others:
     * a service just started is slower until its code is optimised and its connections are
     * open (null with `--warmup 0`).
     */
    warmup: (Latency & { count: number }) | null;
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

async function benchSize(
  size: number,
  queries: number,
  writes: number,
  warmup: number,
  profileDir: string | null,
): Promise<SizeResult> {
  const deployment = await seededDeployment(size, {
    ...(profileDir === null ? {} : { postgresSettings: statementStatsSettings }),
  });
  try {
    const { postgres, redis, nats, pool, store, rand, keysOf, seedSeconds, rebuild } = deployment;

    // The services as processes; the relay publishes new writes from here on.
    const port = await freePort();
    const processes = await startRecallServices(deployment, {
      port,
      env: (name) => (profileDir === null ? {} : profilingEnv(join(profileDir, String(size)), name)),
    });
    deployment.onStop(() => stopServices(processes));
    const nc = await connect({ servers: nats.url });
    deployment.onStop(() => nc.close());
    const baseUrl = `http://127.0.0.1:${port}`;

    if (profileDir !== null) await resetStatementStats(pool);

    const principal = (): Principal => ({
      tenant: pick(rand, tenants),
      agent: pick(rand, agents),
      role: "agent",
      primary: false,
    });
    const query: SizeResult["query"] = {} as SizeResult["query"];
    let started = performance.now();
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
    // A running service's figures: the first recalls after a start (code not yet optimised,
    // connections and caches new) are measured apart, as the warm-up.
    const warmed =
      warmup === 0
        ? null
        : {
            ...(await measure(`REST warm-up ${size}`, warmup, 1, () =>
              restSearch(baseUrl, tenantKey(), queryText(rand)),
            )),
            count: warmup,
          };
    const cpuSince = countCpu(pids);
    const rest = await measure(`REST search ${size}`, queries, 1, () =>
      restSearch(baseUrl, tenantKey(), queryText(rand)),
    );
    // `measure` warms up with up to 20 calls first: they count too.
    const recalls = queries + Math.min(20, queries);
    const cpuMsPerRecall = cpuSince(recalls);
    const sessions = await Promise.all(
      tenants.map(async (t) => [t, await mcpClient(baseUrl, keysOf.get(t) as string)] as const),
    );
    deployment.onStop(async () => {
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
      rebuild,
      query,
      fullRecall: { warmup: warmed, rest, mcp, context, concurrent: { ...concurrent, clients } },
      rssMb: rss,
      peakRssMb: Object.fromEntries(processes.map((p) => [p.name, rssMb(p.child.pid, "peak")])),
      cpuMsPerRecall,
      writeToSearchable: { p50: percentile(samples, 50), p99: percentile(samples, 99) },
      ...(statements === undefined ? {} : { statements }),
    };
  } finally {
    await deployment.stop();
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

const usage =
  "usage: pnpm bench search [--sizes 10000,100000] [--queries 200] [--warmup 300] [--writes 100] [--profile DIR] [--json]\n" +
  "  --warmup N: REST recalls sent after the services start and before the full recall is measured\n" +
  "  (reported apart: a service just started is slower until its code is optimised)";

export async function run(args: string[]): Promise<void> {
  if (!checkArgs(args, { usage, values: ["sizes", "queries", "warmup", "writes", "profile"] })) return;
  const sizes = wholeNumbers(args, "sizes", [10_000, 100_000]);
  const queries = wholeNumber(args, "queries", 200);
  const writes = wholeNumber(args, "writes", 100);
  const warmup = wholeNumber(args, "warmup", 300, { least: 0 });
  const profile = option(args, "profile", "");
  const profileDir = profile === "" ? null : resolve(profile);

  // Before anything starts: what this machine's cores do, for comparing runs across machines.
  const cpuReference = cpuReferenceMs();
  const results: SizeResult[] = [];
  for (const size of sizes) results.push(await benchSize(size, queries, writes, warmup, profileDir));
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
    ...(r.fullRecall.warmup === null
      ? []
      : [
          {
            memories: r.memories,
            measure: `warm-up: first ${r.fullRecall.warmup.count} REST searches`,
            p50_ms: ms(r.fullRecall.warmup.p50Ms),
            p99_ms: ms(r.fullRecall.warmup.p99Ms),
            rate: `${Math.round(r.fullRecall.warmup.perSecond)}/s`,
          },
        ]),
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
