// `--profile DIR` for benches that run services as processes: each service writes a V8 CPU
// profile (`node --cpu-prof`), its spans (`CAIRN_TRACE_FILE`) and, on SIGUSR2, a heap
// snapshot into DIR/<service>/; Postgres records its statements (`pg_stat_statements`). After
// the run the bench prints where each process spent its CPU, how long each span took, and
// which statements took the most time, so a change can start from the figures rather than
// from a guess. The files stay in DIR (profiles and snapshots open in Chrome DevTools).
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type pg from "pg";

/** The environment that makes a service process write its profile into `dir/<name>/`. */
export function profilingEnv(dir: string, name: string): Record<string, string> {
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  return {
    NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${out} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${out}`,
    CAIRN_TRACE_FILE: join(out, "spans.jsonl"),
  };
}

export type SpanTiming = { name: string; count: number; p50Ms: number; meanMs: number; totalMs: number };

/** Durations of a service's spans by name (from its `CAIRN_TRACE_FILE`), the most time first. */
export function spanTimings(dir: string, limit = 15): SpanTiming[] {
  let text = "";
  try {
    text = readFileSync(join(dir, "spans.jsonl"), "utf8");
  } catch {
    return [];
  }
  const byName = new Map<string, number[]>();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const span = JSON.parse(line) as { name: string; start: [number, number]; end: [number, number] };
    const ms = (span.end[0] - span.start[0]) * 1000 + (span.end[1] - span.start[1]) / 1e6;
    const list = byName.get(span.name) ?? [];
    list.push(ms);
    byName.set(span.name, list);
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  return [...byName]
    .map(([name, list]) => {
      const sorted = list.sort((a, b) => a - b);
      const total = sorted.reduce((a, b) => a + b, 0);
      return {
        name,
        count: sorted.length,
        p50Ms: round(sorted[Math.floor(sorted.length / 2)] as number),
        meanMs: round(total / sorted.length),
        totalMs: Math.round(total),
      };
    })
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, limit);
}

/** Postgres settings that load `pg_stat_statements`. */
export const statementStatsSettings = { shared_preload_libraries: "pg_stat_statements" } as const;

export async function resetStatementStats(pool: pg.Pool): Promise<void> {
  await pool.query("create extension if not exists pg_stat_statements");
  await pool.query("select pg_stat_statements_reset()");
}

export type StatementStat = { calls: number; totalMs: number; meanMs: number; rows: number; query: string };

/** The statements that took the most time since the last reset. */
export async function topStatements(pool: pg.Pool, limit = 12): Promise<StatementStat[]> {
  const { rows } = await pool.query<{
    calls: string;
    total: number;
    mean: number;
    rows: string;
    query: string;
  }>(
    `select calls, total_exec_time as total, mean_exec_time as mean, rows, query
       from pg_stat_statements order by total_exec_time desc limit $1`,
    [limit],
  );
  return rows.map((r) => ({
    calls: Number(r.calls),
    totalMs: Math.round(r.total),
    meanMs: Math.round(r.mean * 1000) / 1000,
    rows: Number(r.rows),
    query: r.query.replace(/\s+/g, " ").slice(0, 160),
  }));
}

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
};
type CpuProfile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[] };

export type HotSpot = { selfMs: number; share: number; where: string };

/** A package (`node_modules/zod`) or a source file of ours, for totals by module. */
function moduleOf(path: string): string {
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1] as string;
  return path === "" ? "(vm)" : path;
}

/**
 * Self time over every CPU profile in `dir`: per function and per module (a package, or one
 * of our files), the hottest first. `(idle)` is time the process waited.
 */
export function hotFunctions(
  dir: string,
  limit = 25,
): { totalMs: number; functions: HotSpot[]; modules: HotSpot[] } {
  const self = new Map<string, number>();
  const byModule = new Map<string, number>();
  let totalMs = 0;
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  } catch {
    return { totalMs: 0, functions: [], modules: [] };
  }
  for (const file of files) {
    const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
    const interval = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
    for (const node of profile.nodes) {
      const hits = node.hitCount ?? 0;
      if (hits === 0) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      const path = url.replace(/^file:\/\//, "").replace(/^.*?\/(node_modules|services|contracts)\//, "$1/");
      const where = `${functionName || "(anonymous)"} ${path}${url ? `:${lineNumber + 1}` : ""}`;
      self.set(where, (self.get(where) ?? 0) + hits * interval);
      const module = url ? moduleOf(path) : functionName;
      byModule.set(module, (byModule.get(module) ?? 0) + hits * interval);
      totalMs += hits * interval;
    }
  }
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([where, ms]) => ({
        selfMs: Math.round(ms),
        share: Math.round((ms / totalMs) * 1000) / 10,
        where,
      }));
  return { totalMs: Math.round(totalMs), functions: top(self), modules: top(byModule) };
}
