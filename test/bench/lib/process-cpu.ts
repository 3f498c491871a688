// CPU time a process (and, for a server like Postgres, the children it forked) has used, from
// Linux's /proc. On a shared machine wall-clock rates move with whatever else runs; the CPU a
// write costs moves much less, so benches report it beside the rates.
import { readdirSync, readFileSync } from "node:fs";

const ticksPerSecond = 100; // USER_HZ on Linux

type Stat = { ppid: number; self: number; reaped: number };

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: fields count from its end.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    const n = (i: number) => Number(fields[i - 3] ?? 0);
    return { ppid: n(4), self: n(14) + n(15), reaped: n(16) + n(17) };
  } catch {
    return undefined;
  }
}

/**
 * Seconds of CPU used by `pid`; with `children`, also by its live children and by those it
 * has reaped (Postgres backends that ended). Undefined when the process is gone.
 */
export function cpuSeconds(
  pid: number | undefined,
  options: { children?: boolean } = {},
): number | undefined {
  if (pid === undefined) return undefined;
  const own = stat(pid);
  if (!own) return undefined;
  let ticks = own.self;
  if (options.children) {
    ticks += own.reaped;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const child = stat(Number(entry));
      if (child?.ppid === pid) ticks += child.self;
    }
  }
  return ticks / ticksPerSecond;
}
