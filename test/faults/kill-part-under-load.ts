// One fault run: a bounded write load; at a third of it the part is killed with SIGKILL,
// started again 3 s later, and the load goes on to the end. Then what the run left is
// checked (fault-checks.ts) and summed up in one row of the report.
import { waitFor } from "@cairn/testing";
import {
  compareWithLog,
  countResults,
  outageAnswerProblems,
  readModelDrift,
  recordedInLog,
  unreadable,
} from "./fault-checks.ts";
import type { FaultPart, FaultStack } from "./fault-stack.ts";
import { runWriteLoad } from "./write-load.ts";

export type FaultRunOptions = {
  writes: number;
  clients: number;
  /** Whether clients retry (only safe when the gateway honours Idempotency-Key). */
  retries: boolean;
  /** Makes the run's slots unique: `fault/<run>/<part>/…`. */
  run: string;
  tenant: string;
};

export type FaultReport = {
  part: FaultPart;
  writes: number;
  acknowledged: number;
  /** Writes never acknowledged, by the last answer they got. */
  failed: string;
  /** Every answer but 201, over all attempts (retries included). */
  answers: string;
  lost: number;
  duplicates: number;
  writtenUnacknowledged: number;
  /** From the restart to the gateway's /readyz answering 200. */
  recoverySeconds: number | null;
  /** From the restart to the first write acknowledged after it. */
  writesResumedSeconds: number | null;
  problems: string[];
};

const outageMs = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

export async function killPartUnderLoad(
  stack: FaultStack,
  part: FaultPart,
  options: FaultRunOptions,
): Promise<FaultReport> {
  const prefix = `fault/${options.run}/${part}`;
  const problems: string[] = [];
  let restartedAt: number | undefined;
  let readyAt: number | undefined;
  let fault: Promise<void> | undefined;
  const strikeAt = Math.round(options.writes / 3);
  const strike = async () => {
    await stack.kill(part);
    await sleep(outageMs);
    restartedAt = Date.now();
    await stack.restart(part);
    await waitFor(stack.ready, { timeoutMs: 120_000, intervalMs: 200, description: `ready after ${part}` })
      .then(() => {
        readyAt = Date.now();
      })
      .catch(() => problems.push(`not ready within 120 s of restarting ${part}`));
  };
  const outcomes = await runWriteLoad({
    baseUrl: stack.baseUrl,
    apiKey: stack.apiKey,
    prefix,
    writes: options.writes,
    clients: options.clients,
    retries: options.retries,
    onSettled: (settled) => {
      if (settled >= strikeAt) fault ??= strike();
    },
  });
  await (fault ?? strike());

  const dead = stack.exited();
  for (const service of dead) {
    problems.push(
      `${service.name} exited by itself (${service.code}): ${service.logs.slice(-3).join(" | ")}`,
    );
    // Started again, so that the checks below and the next runs see a whole deployment.
    await stack.restart(service.name);
  }
  if (dead.length > 0) await waitFor(stack.ready, { timeoutMs: 60_000, intervalMs: 300 }).catch(() => false);
  else if (!(await stack.ready())) problems.push("/readyz is not 200 after the load");
  problems.push(...outageAnswerProblems(outcomes).map((p) => `clients saw ${p}`));

  const inLog = await recordedInLog(stack.databaseUrl, prefix);
  const { lost, duplicates, writtenUnacknowledged } = compareWithLog(outcomes, inLog);
  if (lost.length > 0) problems.push(`acknowledged but not in the log: ${lost.slice(0, 5).join(", ")}`);
  if (duplicates.length > 0) problems.push(`written more than once: ${duplicates.slice(0, 5).join(", ")}`);
  problems.push(...(await readModelDrift(stack, options.tenant)).map((d) => `read models: ${d}`));
  const missing = await unreadable(stack, outcomes);
  if (missing.length > 0) problems.push(`acknowledged, not readable: ${missing.slice(0, 5).join(", ")}`);

  const failed = outcomes.filter((o) => o.acknowledged === null);
  const firstAckAfterRestart = outcomes
    .flatMap((o) => o.attempts)
    .filter((a) => a.result === 201 && restartedAt !== undefined && a.at + a.ms >= restartedAt)
    .reduce((first, a) => Math.min(first, a.at + a.ms), Number.POSITIVE_INFINITY);
  return {
    part,
    writes: outcomes.length,
    acknowledged: outcomes.length - failed.length,
    failed: countResults(failed.map((o) => o.attempts.at(-1)?.result ?? "network")),
    answers: countResults(outcomes.flatMap((o) => o.attempts.map((a) => a.result)).filter((r) => r !== 201)),
    lost: lost.length,
    duplicates: duplicates.length,
    writtenUnacknowledged,
    recoverySeconds:
      readyAt !== undefined && restartedAt !== undefined ? seconds(readyAt - restartedAt) : null,
    writesResumedSeconds:
      restartedAt !== undefined && Number.isFinite(firstAckAfterRestart)
        ? seconds(firstAckAfterRestart - restartedAt)
        : null,
    problems,
  };
}

/** The report as a table, one row per part. */
export function formatFaultTable(reports: FaultReport[]): string {
  const header = [
    "part",
    "writes",
    "acknowledged",
    "failed (last answer)",
    "answers other than 201",
    "lost",
    "duplicates",
    "written, unacknowledged",
    "recovery s",
    "writes resumed s",
  ];
  const rows = reports.map((r) => [
    r.part,
    String(r.writes),
    String(r.acknowledged),
    r.failed || "0",
    r.answers || "none",
    String(r.lost),
    String(r.duplicates),
    String(r.writtenUnacknowledged),
    r.recoverySeconds === null ? "-" : String(r.recoverySeconds),
    r.writesResumedSeconds === null ? "-" : String(r.writesResumedSeconds),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
