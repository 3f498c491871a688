// `pnpm bench copies [--memories 20000] [--copies 1,2] [--json]`
//
// What more copies of the projecting services add. The log is seeded with N memories (the same
// text as `pnpm bench search`), then, for each copy count, the read models are built from an
// empty start by that many copies each of search, ranking and maintenance, run as processes
// as a person runs them: the time until every projection has reached the end of the log gives
// events per second, beside the CPU each kind of process spent per event. Each count starts
// from a fresh database, Redis and JetStream stream, with the same log.
//
// More copies of ingest (writes) are measured by `pnpm bench ingest --copies N`.
import { call } from "@cairn/bus";
import { type BackendServiceName, projectionRpcs } from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import { startNats, startPostgres, startRedis, waitFor } from "@cairn/testing/servers";
import { connect } from "@nats-io/transport-node";
import { Redis } from "ioredis";
import pg from "pg";
import { type ServiceProcess, spawnService } from "../helpers/service-processes.ts";
import { checkArgs, wholeNumber, wholeNumbers } from "./lib/bench-args.ts";
import { appendInput, memory, random, seedLog } from "./lib/bench-memories.ts";
import { cpuSeconds } from "./lib/process-cpu.ts";
import { progress, type Row, report } from "./lib/report.ts";

const projecting: BackendServiceName[] = ["search", "ranking", "maintenance"];

type CountResult = {
  copies: number;
  seconds: number;
  eventsPerSecond: number;
  /** CPU milliseconds per event, summed over the copies of each service. */
  cpuMsPerEvent: Record<string, number>;
  positions: Record<string, number>;
};

async function buildWithCopies(
  copies: number,
  memories: number,
  infra: { postgres: Awaited<ReturnType<typeof startPostgres>>; redisUrl: string; natsUrl: string },
): Promise<CountResult> {
  const databaseUrl = await infra.postgres.createDatabase(`copies${copies}`);
  await migrateToLatest(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  pool.on("error", () => {});
  const redis = new Redis(infra.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on("error", () => {});
  const nc = await connect({ servers: infra.natsUrl });
  const processes: ServiceProcess[] = [];
  try {
    await redis.connect();
    await redis.flushall();
    // Each count gets a stream of its own: nothing delivered before counts.
    await nc.request("$JS.API.STREAM.DELETE.CAIRN_EVENTS", "", { timeout: 5000 }).catch(() => undefined);
    const rand = random(memories);
    for (let done = 0; done < memories; done += 1000) {
      await seedLog(
        pool,
        Array.from({ length: Math.min(1000, memories - done) }, (_, i) =>
          appendInput(memory(rand, done + i)),
        ),
      );
    }
    const { rows } = await pool.query<{ max: string }>("select max(position) as max from cairn_events");
    const end = Number(rows[0]?.max ?? 0);

    const env = {
      CAIRN_DATABASE_URL: databaseUrl,
      CAIRN_REDIS_URL: infra.redisUrl,
      CAIRN_NATS_URL: infra.natsUrl,
      CAIRN_LOG_LEVEL: "warn",
      CAIRN_METRICS_PORT: "off",
      CAIRN_MAINTENANCE_SCHEDULER: "0",
    };
    const postgresBefore = cpuSeconds(infra.postgres.pid, { children: true }) ?? 0;
    const started = performance.now();
    for (const service of projecting) {
      for (let i = 0; i < copies; i += 1) {
        processes.push(spawnService(service, { ...env, CAIRN_INSTANCE: `${service}-${i}` }));
      }
    }
    const label = `${copies} ${copies === 1 ? "copy" : "copies"}`;
    const positions: Record<string, number> = {};
    const ticker = setInterval(() => {
      const reached = Math.min(...Object.values(positions), end);
      progress(label, Object.keys(positions).length === 0 ? 0 : reached, end, started);
    }, 1000);
    try {
      await waitFor(
        async () => {
          for (const service of projecting) {
            const reply = await call(nc, projectionRpcs(service).status, {}, { timeoutMs: 2000 }).catch(
              () => undefined,
            );
            for (const p of reply?.projections ?? []) positions[p.name] = p.position;
          }
          const names = Object.keys(positions);
          return names.length >= 5 && names.every((n) => (positions[n] ?? 0) >= end);
        },
        { timeoutMs: 30 * 60_000, intervalMs: 200, description: "every projection to reach the log's end" },
      );
    } finally {
      clearInterval(ticker);
    }
    const seconds = (performance.now() - started) / 1000;
    const cpuMsPerEvent: Record<string, number> = {};
    for (const service of projecting) {
      const own = processes.filter((p) => p.name === service);
      const total = own.reduce((sum, p) => sum + (cpuSeconds(p.child.pid) ?? 0), 0);
      cpuMsPerEvent[service] = Number(((1000 * total) / end).toFixed(3));
    }
    const postgresAfter = cpuSeconds(infra.postgres.pid, { children: true }) ?? postgresBefore;
    cpuMsPerEvent.postgres = Number(((1000 * (postgresAfter - postgresBefore)) / end).toFixed(3));
    return { copies, seconds, eventsPerSecond: Math.round(end / seconds), cpuMsPerEvent, positions };
  } finally {
    for (const p of processes) await p.stop();
    await nc.close();
    redis.disconnect();
    await pool.end();
  }
}

export async function run(args: string[]): Promise<void> {
  const usage = "usage: pnpm bench copies [--memories 20000] [--copies 1,2] [--json]";
  if (!checkArgs(args, { usage, values: ["memories", "copies"] })) return;
  const memories = wholeNumber(args, "memories", 20_000);
  const counts = wholeNumbers(args, "copies", [1, 2]);
  process.stderr.write("starting Postgres, Redis and NATS...\n");
  const postgres = await startPostgres();
  const redis = await startRedis();
  const nats = await startNats();
  try {
    const results: CountResult[] = [];
    for (const copies of counts) {
      results.push(
        await buildWithCopies(copies, memories, { postgres, redisUrl: redis.url, natsUrl: nats.url }),
      );
    }
    const base = results[0];
    const rows: Row[] = results.map((r) => ({
      copies: r.copies,
      seconds: Number(r.seconds.toFixed(1)),
      "events/s": r.eventsPerSecond,
      "vs first": base ? Number((r.eventsPerSecond / base.eventsPerSecond).toFixed(2)) : 1,
      ...Object.fromEntries(Object.entries(r.cpuMsPerEvent).map(([k, v]) => [`${k} cpu ms/event`, v])),
    }));
    report(
      `copies: the read models of ${memories} memories built from the log by N copies each of search, ranking and maintenance`,
      rows,
      { bench: "copies", memories, results: results.map(({ positions: _p, ...r }) => r) },
      args,
    );
  } finally {
    await nats.stop();
    await redis.stop();
    await postgres.stop();
  }
}
