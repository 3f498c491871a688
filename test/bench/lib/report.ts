/** Shared output for benchmarks: a readable table, then (with --json) one JSON line last. */

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export type Row = Record<string, string | number>;

function cell(value: string | number): string {
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(3);
  return value;
}

export function formatTable(rows: Row[]): string {
  const first = rows[0];
  if (!first) return "(no rows)";
  const columns = Object.keys(first);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c] ?? "").length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i] ?? 0)).join("  ");
  return [
    line(columns),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((r) => line(columns.map((c) => cell(r[c] ?? "")))),
  ].join("\n");
}

export function report(title: string, rows: Row[], summary: Record<string, unknown>, args: string[]): void {
  console.log(`\n${title}\n`);
  console.log(formatTable(rows));
  if (args.includes("--json")) console.log(JSON.stringify(summary));
}

/** Progress on stderr so the table and the JSON line stay clean on stdout. */
export function progress(label: string, done: number, total: number, startedAt: number): void {
  if (!process.stderr.isTTY && done !== total && done % Math.max(1, Math.floor(total / 10)) !== 0) return;
  const seconds = (performance.now() - startedAt) / 1000;
  const rate = done / Math.max(seconds, 1e-6);
  const eta = rate > 0 ? (total - done) / rate : 0;
  const line = `${label}: ${done}/${total} (${rate.toFixed(0)}/s, eta ${eta.toFixed(0)} s)`;
  if (process.stderr.isTTY) process.stderr.write(`\r${line}${done === total ? "\n" : ""}`);
  else process.stderr.write(`${line}\n`);
}
