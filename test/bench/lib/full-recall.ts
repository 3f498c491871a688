// What a user waits for: a full recall through the gateway over HTTP (REST search, MCP
// memory_search and memory_context), one client at a time and then several at once, and the
// resident memory of each service process.
import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { percentile, progress } from "./report.ts";

export type Latency = { p50Ms: number; p99Ms: number; perSecond: number };

/** Runs `fn` `count` times with `clients` at once (after a warm-up) and measures each call. */
export async function measure(
  label: string,
  count: number,
  clients: number,
  fn: (i: number) => Promise<void>,
): Promise<Latency> {
  for (let i = 0; i < Math.min(20, count); i += 1) await fn(i);
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) {
        const i = next;
        next += 1;
        const t0 = performance.now();
        await fn(i);
        samples.push(performance.now() - t0);
        progress(label, samples.length, count, started);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { p50Ms: percentile(samples, 50), p99Ms: percentile(samples, 99), perSecond: count / seconds };
}

/** A REST search with a key; throws unless it answers 200. */
export async function restSearch(baseUrl: string, key: string, query: string): Promise<void> {
  const res = await fetch(`${baseUrl}/v1/memories?q=${encodeURIComponent(query)}&limit=10`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`REST search answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

export async function mcpClient(baseUrl: string, key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

export async function mcpTool(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content).slice(0, 300)}`);
}

/** A process's resident memory, in MB (Linux). */
export function rssMb(pid: number | undefined, which: "now" | "peak" = "now"): number | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = which === "peak" ? /VmHWM:\s+(\d+)/ : /VmRSS:\s+(\d+)/;
    const kb = Number(field.exec(status)?.[1] ?? Number.NaN);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc's CPU times (Linux's USER_HZ, 100 on every mainstream kernel). */
const ticksPerSecond = 100;

/**
 * A process's parent pid, CPU time (user + system, ms) and that of its children that have
 * ended, from /proc/<pid>/stat (Linux).
 */
function stat(pid: number): { ppid: number; cpuMs: number; endedChildrenMs: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces: the fields after it follow its closing ")".
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
    const endedChildrenMs = ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
    return Number.isFinite(cpuMs) ? { ppid, cpuMs, endedChildrenMs } : null;
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) a process and its children have used so far, ended ones included: Postgres
 * serves each connection in a child process of the server.
 */
export function cpuMsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const own = stat(pid);
  if (!own) return null;
  let total = own.cpuMs + own.endedChildrenMs;
  for (const entry of readdirSync("/proc")) {
    const child = Number(entry);
    if (!Number.isInteger(child) || child === pid) continue;
    const s = stat(child);
    if (s && s.ppid === pid) total += s.cpuMs;
  }
  return total;
}

/**
 * Starts counting the CPU time of these processes; the function returned answers each one's
 * CPU ms per recall since then, for `recalls` recalls (null for a process it could not read).
 */
export function countCpu(
  pids: Record<string, number | undefined>,
): (recalls: number) => Record<string, number | null> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMsOf(pid)]));
  return (recalls) =>
    Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => {
        const start = before[name];
        const end = cpuMsOf(pid);
        const per = start == null || end === null ? null : (end - start) / recalls;
        return [name, per === null ? null : Math.round(per * 100) / 100];
      }),
    );
}
