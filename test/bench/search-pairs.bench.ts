// `pnpm bench search-pairs --against DIR`: the full recall through the gateway, served in turn
// by this checkout's services and by another checkout's, on one deployment seeded and rebuilt
// once. Only the services restart between runs, so a pair takes about a minute, and the runs
// alternate (this, other; other, this; …) so that a machine that speeds up or slows down
// during the bench moves both alike. What it reports is the ratio of each pair, and their
// median: on a shared machine whole bench runs move by more than most changes do.
import { existsSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { BenchOptionError, checkArgs, option, wholeNumber } from "./lib/bench-args.ts";
import { queryText, tenants } from "./lib/bench-memories.ts";
import { countCpu, measure, restSearch } from "./lib/full-recall.ts";
import { cpuReferenceMs } from "./lib/machine.ts";
import { type Row, report } from "./lib/report.ts";
import {
  freePort,
  type SeededDeployment,
  seededDeployment,
  startRecallServices,
  stopServices,
} from "./lib/seeded-deployment.ts";

const usage =
  "usage: pnpm bench search-pairs --against DIR [--memories 100000] [--rounds 4] [--queries 300] [--clients 1] [--json]\n" +
  "  DIR: another checkout with its dependencies installed (pnpm install) and the same read model\n" +
  "  versions, e.g. `git worktree add ../base HEAD~1 && (cd ../base && pnpm install --offline)`;\n" +
  "  `--against .` runs this checkout against itself, which shows the machine's noise.";

type Checkout = "this" | "against";

type Run = {
  round: number;
  checkout: Checkout;
  p50Ms: number;
  p99Ms: number;
  perSecond: number;
  /** CPU ms per recall of each process (services, Redis, Postgres, NATS) and their total. */
  cpuMsPerRecall: Record<string, number | null>;
  cpuMsPerRecallTotal: number;
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** One run: the services from `cwd`, a warm-up, then `queries` REST recalls by `clients`. */
async function runOnce(
  deployment: SeededDeployment,
  cwd: string,
  queries: number,
  clients: number,
): Promise<Omit<Run, "round" | "checkout">> {
  const port = await freePort();
  const processes = await startRecallServices(deployment, { port, cwd });
  try {
    const stale = processes.find((p) => p.logs.some((l) => l.includes("built by another version")));
    if (stale)
      throw new Error(
        `the services of ${cwd} build a read model of another version than this checkout's, so they cannot share its deployment:\n` +
          stale.logs.filter((l) => l.includes("built by another version")).join("\n"),
      );
    const { rand, keysOf } = deployment;
    const key = () => keysOf.get(tenants[Math.floor(rand() * tenants.length)] as string) as string;
    const baseUrl = `http://127.0.0.1:${port}`;
    // Services just started are slower for their first few dozen requests.
    for (let i = 0; i < 30; i += 1) await restSearch(baseUrl, key(), queryText(rand));
    const pids: Record<string, number | undefined> = {
      ...Object.fromEntries(processes.map((p) => [p.name, p.child.pid])),
      redis: deployment.redis.pid,
      postgres: deployment.postgres.pid,
      nats: deployment.nats.pid,
    };
    const cpuSince = countCpu(pids);
    const latency = await measure(`REST search (${cwd})`, queries, clients, () =>
      restSearch(baseUrl, key(), queryText(rand)),
    );
    // `measure` warms up with up to 20 calls first: they count too.
    const recalls = queries + Math.min(20, queries);
    const cpu = cpuSince(recalls);
    return {
      ...latency,
      cpuMsPerRecall: cpu,
      cpuMsPerRecallTotal: round2(Object.values(cpu).reduce<number>((sum, ms) => sum + (ms ?? 0), 0)),
    };
  } finally {
    await stopServices(processes);
  }
}

export async function run(args: string[]): Promise<void> {
  if (!checkArgs(args, { usage, values: ["against", "memories", "rounds", "queries", "clients"] })) return;
  const against = option(args, "against", "");
  if (against === "") throw new BenchOptionError(`--against DIR is required\n${usage}`);
  const here = resolve(import.meta.dirname, "../..");
  const other = resolve(against);
  for (const needed of ["services/gateway/src/main.ts", "node_modules"]) {
    if (!existsSync(join(other, needed)))
      throw new BenchOptionError(
        `${other} is not a checkout with its dependencies installed (no ${needed})\n${usage}`,
      );
  }
  const memories = wholeNumber(args, "memories", 100_000, { usage });
  const rounds = wholeNumber(args, "rounds", 4, { usage });
  const queries = wholeNumber(args, "queries", 300, { usage });
  const clients = wholeNumber(args, "clients", 1, { usage });

  const cpuReference = cpuReferenceMs();
  const deployment = await seededDeployment(memories);
  const runs: Run[] = [];
  try {
    for (let round = 1; round <= rounds; round += 1) {
      // Alternate which goes first, so neither always follows the other.
      const order: Checkout[] = round % 2 === 1 ? ["this", "against"] : ["against", "this"];
      for (const checkout of order) {
        const result = await runOnce(deployment, checkout === "this" ? here : other, queries, clients);
        runs.push({ round, checkout, ...result });
      }
    }
  } finally {
    await deployment.stop();
  }

  const pairs = Array.from({ length: rounds }, (_, i) => {
    const of = (checkout: Checkout) => runs.find((r) => r.round === i + 1 && r.checkout === checkout) as Run;
    return { self: of("this"), other: of("against") };
  });
  // Each figure's ratio (against / this) in every round, and the median of them.
  const ratioOf = (figure: (r: Run) => number) =>
    Math.round(median(pairs.map((p) => figure(p.other) / figure(p.self))) * 1000) / 1000;
  const ratio = {
    p50: ratioOf((r) => r.p50Ms),
    p99: ratioOf((r) => r.p99Ms),
    perSecond: ratioOf((r) => r.perSecond),
    cpuMsPerRecall: ratioOf((r) => r.cpuMsPerRecallTotal),
  };
  const ms = (n: number) => Math.round(n * 10) / 10;
  const rows: Row[] = [
    ...runs.map((r) => ({
      round: r.round,
      checkout: r.checkout === "this" ? "this" : other,
      p50_ms: ms(r.p50Ms),
      p99_ms: ms(r.p99Ms),
      per_second: Math.round(r.perSecond),
      cpu_ms_per_recall: `${r.cpuMsPerRecallTotal} (${Object.entries(r.cpuMsPerRecall)
        .map(([name, v]) => `${name} ${v ?? "?"}`)
        .join(", ")})`,
    })),
    {
      round: "median",
      checkout: "against / this",
      p50_ms: `×${ratio.p50}`,
      p99_ms: `×${ratio.p99}`,
      per_second: `×${ratio.perSecond}`,
      cpu_ms_per_recall: `×${ratio.cpuMsPerRecall}`,
    },
  ];
  report(
    `search-pairs: ${memories} memories, ${rounds} rounds of ${queries} REST recalls by ${clients} client(s) per checkout; ${cpus().length} CPUs (reference work ${cpuReference} ms)`,
    rows,
    {
      bench: "search-pairs",
      memories,
      rounds,
      queries,
      clients,
      against: other,
      cpuReferenceMs: cpuReference,
      runs,
      ratio,
    },
    args,
  );
}
