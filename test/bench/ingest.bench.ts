// `pnpm bench ingest [--json] [--seconds 10] [--concurrency 32] [--copies 1] [--no-fsync]`
//
// Sustained writes per second through the ingest service as a person runs it: ingest as
// separate processes (`node services/ingest/src/main.ts`), commands over NATS request/reply,
// appended to a throwaway Postgres (fsync on unless --no-fsync) and relayed to JetStream.
// Reports acknowledged writes/s, writes/s including the relay (until the last event is in
// JetStream), p50/p99 write latency under that load and for a single client, and checks
// that every event reached JetStream exactly once.
import { type ChildProcess, spawn } from "node:child_process";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { call, connectBus, decodeRelayedEvents, eventHeaderNames } from "@cairn/bus";
import {
  type CommandName,
  commandRpc,
  eventStreamName,
  healthRpc,
  type Principal,
  type RpcDefinition,
  type WriteResult,
} from "@cairn/contracts";
// The fixtures' own modules: the package index also loads vitest's `infraTest`, which only
// works inside a vitest run.
import { withServiceNodeOptions } from "@cairn/service-runtime";
import { startNats, startPostgres, waitFor } from "@cairn/testing/servers";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import pg from "pg";
import { checkArgs, positiveNumber, wholeNumber } from "./lib/bench-args.ts";
import { cpuReferenceMs } from "./lib/machine.ts";
import { cpuSeconds } from "./lib/process-cpu.ts";
import { percentile, progress, type Row, report } from "./lib/report.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));

const principal: Principal = { tenant: "bench", agent: "bench-agent", role: "agent", primary: false };
const topics = [
  "deploys",
  "database",
  "testing",
  "observability",
  "security",
  "frontend",
  "billing",
  "search",
];

function content(i: number): string {
  const topic = topics[i % topics.length];
  return (
    `Decision ${i} about ${topic}: Alice Smith and the platform team agreed to keep PostgreSQL 16 ` +
    `with pgvector for ${topic}, run \`pnpm test\` before merging, and watch the p99 latency in Grafana. ` +
    `See [[${topic}-runbook]] and services/${topic}/src/main.ts; it works well and the team is happy with it.`
  );
}

type Phase = {
  name: string;
  latencies: number[];
  writes: number;
  errors: number;
  seconds: number;
  relayedSeconds: number;
  /** CPU milliseconds per acknowledged write, by process (ingest, postgres, nats, client). */
  cpuMsPerWrite: Record<string, number>;
};

/** CPU seconds used so far, by process. */
type CpuSampler = () => Record<string, number>;

async function lastPositionInLog(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ max: string | null }>("select max(position) as max from cairn_events");
  return Number(rows[0]?.max ?? 0);
}

async function lastPositionInJetStream(nc: NatsConnection): Promise<{ position: number; messages: number }> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(eventStreamName).catch(() => undefined);
  if (!info || info.state.messages === 0) return { position: 0, messages: 0 };
  const last = await jsm.streams.getMessage(eventStreamName, { seq: info.state.last_seq });
  return {
    position: Number(last?.header.get(eventHeaderNames.position) ?? 0),
    messages: info.state.messages,
  };
}

/**
 * The events JetStream holds (a message carries a commit's events), and whether each is there
 * once and in log order: read through an ordered consumer.
 */
async function eventsInJetStream(nc: NatsConnection): Promise<{ events: number; inOrderOnce: boolean }> {
  const { messages } = await lastPositionInJetStream(nc);
  if (messages === 0) return { events: 0, inOrderOnce: true };
  const consumer = await jetstream(nc).consumers.get(eventStreamName);
  let events = 0;
  let last = 0;
  let inOrderOnce = true;
  for (let read = 0; read < messages; ) {
    const batch = await consumer.fetch({ max_messages: Math.min(1000, messages - read), expires: 5000 });
    let got = 0;
    for await (const m of batch) {
      got += 1;
      for (const e of decodeRelayedEvents(m).events) {
        if (e.position <= last) inOrderOnce = false;
        last = e.position;
        events += 1;
      }
    }
    if (got === 0) break;
    read += got;
  }
  return { events, inOrderOnce };
}

async function runPhase(
  name: string,
  seconds: number,
  concurrency: number,
  nc: NatsConnection,
  pool: pg.Pool,
  cpu: CpuSampler,
  write: (worker: number, n: number) => Promise<WriteResult>,
): Promise<Phase> {
  const latencies: number[] = [];
  const cpuBefore = cpu();
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let next = 0;
  const ticker = setInterval(
    () => progress(name, Math.round((performance.now() - started) / 1000), seconds, started),
    1000,
  );
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const n = next;
        next += 1;
        const t0 = performance.now();
        try {
          await write(worker, n);
          latencies.push(performance.now() - t0);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  clearInterval(ticker);
  const acked = performance.now();
  const target = await lastPositionInLog(pool);
  await waitFor(async () => (await lastPositionInJetStream(nc)).position >= target, {
    timeoutMs: 120_000,
    intervalMs: 20,
    description: "the relay to publish every event",
  });
  const relayed = performance.now();
  const cpuAfter = cpu();
  const writes = Math.max(1, latencies.length);
  return {
    name,
    latencies,
    writes: latencies.length,
    errors,
    seconds: (acked - started) / 1000,
    relayedSeconds: (relayed - started) / 1000,
    cpuMsPerWrite: Object.fromEntries(
      Object.entries(cpuAfter).map(([process, seconds]) => [
        process,
        Number(((1000 * (seconds - (cpuBefore[process] ?? 0))) / writes).toFixed(3)),
      ]),
    ),
  };
}

export async function run(args: string[]): Promise<void> {
  const usage =
    "usage: pnpm bench ingest [--seconds 10] [--concurrency 32] [--copies 1] [--no-fsync] [--json]";
  if (!checkArgs(args, { usage, values: ["seconds", "concurrency", "copies"], flags: ["no-fsync"] })) return;
  const seconds = positiveNumber(args, "seconds", 10);
  const concurrency = wholeNumber(args, "concurrency", 32);
  const copies = wholeNumber(args, "copies", 1);
  const fsync = !args.includes("--no-fsync");
  // Before anything starts: what this machine's cores do, for comparing runs across machines.
  const cpuReference = cpuReferenceMs();
  process.stderr.write(`starting Postgres (fsync ${fsync ? "on" : "off"}) and NATS...\n`);
  const postgres = await startPostgres({ settings: { fsync: fsync ? "on" : "off" } });
  const nats = await startNats();
  const children: ChildProcess[] = [];
  let nc: NatsConnection | undefined;
  let pool: pg.Pool | undefined;
  try {
    const databaseUrl = await postgres.createDatabase("bench");
    pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    nc = await connectBus({ url: nats.url, name: "bench-ingest" });
    const client = nc;
    for (let i = 0; i < copies; i += 1) {
      const child = spawn(process.execPath, ["services/ingest/src/main.ts"], {
        cwd: root,
        env: withServiceNodeOptions({
          ...process.env,
          CAIRN_DATABASE_URL: databaseUrl,
          CAIRN_NATS_URL: nats.url,
          CAIRN_LOG_LEVEL: "warn",
          CAIRN_METRICS_PORT: "0",
          CAIRN_INSTANCE: `ingest-bench-${i}`,
          // The first copy brings the schema up; the others start once it answers.
          CAIRN_MIGRATE_ON_START: i === 0 ? "1" : "0",
        }),
        stdio: ["ignore", "inherit", "inherit"],
      });
      children.push(child);
      await waitFor(() => call(client, healthRpc("ingest"), {}, { timeoutMs: 1000 }), {
        timeoutMs: 30_000,
        description: "ingest to answer its health check",
      });
    }
    // The relay runs inside ingest: its CPU counts with ingest's.
    const cpu: CpuSampler = () => {
      const own = process.cpuUsage();
      return {
        ingest: children.reduce((sum, c) => sum + (cpuSeconds(c.pid) ?? 0), 0),
        postgres: cpuSeconds(postgres.pid, { children: true }) ?? 0,
        nats: cpuSeconds(nats.pid) ?? 0,
        client: (own.user + own.system) / 1e6,
      };
    };
    const send = (name: CommandName, payload: unknown) =>
      call(client, commandRpc(name) as RpcDefinition, payload, { timeoutMs: 30_000 }) as Promise<WriteResult>;

    // Warm up (JIT, connection pools, the NLP models) before measuring.
    for (let i = 0; i < 50; i += 1) {
      await send("memory.create", {
        principal,
        memory: { slot: `warm-${i}`, content: `warm up ${i} ${content(i)}` },
      });
    }

    const create = await runPhase("create", seconds, concurrency, client, pool, cpu, (_w, n) =>
      send("memory.create", {
        principal,
        memory: {
          slot: `bench-${n}`,
          kind: "decision",
          content: content(n),
          keys: [topics[n % topics.length]],
        },
      }),
    );

    // Each worker revises its own memory with the version token it got back.
    const owned = await Promise.all(
      Array.from({ length: concurrency }, (_, w) =>
        send("memory.create", {
          principal,
          memory: { slot: `owned-${w}`, content: `owned ${w} ${content(w)}` },
        }),
      ),
    );
    const versions = owned.map((o) => o.version);
    const update = await runPhase("update", seconds, concurrency, client, pool, cpu, async (w, n) => {
      const result = await send("memory.update", {
        principal,
        id: owned[w]?.id,
        expectedVersion: versions[w],
        changes: { content: `revision ${n}: ${content(n)}` },
      });
      versions[w] = result.version;
      return result;
    });

    // Latency of a single client's writes, without queueing behind other clients.
    const single = await runPhase(
      "create, 1 client",
      Math.max(2, seconds / 2),
      1,
      client,
      pool,
      cpu,
      (_w, n) =>
        send("memory.create", {
          principal,
          memory: {
            slot: `single-${n}`,
            kind: "decision",
            content: `single ${content(n)}`,
            keys: ["single"],
          },
        }),
    );

    const { rows } = await pool.query<{ count: string }>("select count(*) from cairn_events");
    const inLog = Number(rows[0]?.count);
    const relayed = await eventsInJetStream(client);
    const messages = relayed.events;
    const phases = [create, update, single];
    const rowsOut: Row[] = phases.map((p) => ({
      phase: p.name,
      clients: p.name.includes("1 client") ? 1 : concurrency,
      writes: p.writes,
      errors: p.errors,
      "acked writes/s": Math.round(p.writes / p.seconds),
      "relayed writes/s": Math.round(p.writes / p.relayedSeconds),
      "p50 ms": Number(percentile(p.latencies, 50).toFixed(2)),
      "p99 ms": Number(percentile(p.latencies, 99).toFixed(2)),
      ...Object.fromEntries(Object.entries(p.cpuMsPerWrite).map(([k, v]) => [`${k} cpu ms/w`, v])),
    }));
    const summary = {
      bench: "ingest",
      seconds,
      concurrency,
      copies,
      fsync,
      cpus: cpus().length,
      // Other work on the machine skews the figures; the 1-minute load average says how much.
      loadAverage: Number(loadavg()[0]?.toFixed(2)),
      cpuReferenceMs: cpuReference,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      eventsInLog: inLog,
      eventsInJetStream: messages,
      relayedExactlyOnce: inLog === messages && relayed.inOrderOnce,
      phases: Object.fromEntries(
        phases.map((p) => [
          p.name === "create, 1 client" ? "createSingleClient" : p.name,
          {
            writes: p.writes,
            errors: p.errors,
            ackedPerSecond: Math.round(p.writes / p.seconds),
            relayedPerSecond: Math.round(p.writes / p.relayedSeconds),
            p50Ms: Number(percentile(p.latencies, 50).toFixed(2)),
            p99Ms: Number(percentile(p.latencies, 99).toFixed(2)),
            cpuMsPerWrite: p.cpuMsPerWrite,
          },
        ]),
      ),
    };
    report(
      `ingest: ${copies} ingest process(es), ${concurrency} concurrent clients, ${seconds} s per phase, fsync ${
        fsync ? "on" : "off"
      }, ${cpus().length} CPUs (load average ${loadavg()[0]?.toFixed(1)}, reference work ${cpuReference} ms); ${inLog} events in the log, ${messages} in JetStream (exactly once: ${
        inLog === messages && relayed.inOrderOnce ? "yes" : "NO"
      })`,
      rowsOut,
      summary,
      args,
    );
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(
      children.map(
        (c) => new Promise((resolve) => (c.exitCode !== null ? resolve(null) : c.once("exit", resolve))),
      ),
    );
    await nc?.close();
    await pool?.end();
    await nats.stop();
    await postgres.stop();
  }
}
