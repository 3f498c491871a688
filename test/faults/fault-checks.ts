// What a fault run must leave behind, checked against the log (the only truth) and the read
// models: every acknowledged write in the log once, no write twice, the read models equal to
// the log (the doctor's full comparison, once every projection has caught up), and clients
// that only ever saw an outage answered as one.
import { call } from "@cairn/bus";
import { type DoctorReport, maintenanceRpcs } from "@cairn/contracts";
import { waitFor } from "@cairn/testing";
import pg from "pg";
import type { FaultStack } from "./fault-stack.ts";
import type { AttemptResult, WriteOutcome } from "./write-load.ts";

/** The memories the log holds under a slot prefix: slot → the ids recorded with it. */
export async function recordedInLog(databaseUrl: string, prefix: string): Promise<Map<string, string[]>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ slot: string; id: string }>(
      `select data->>'slot' as slot, data->>'id' as id from cairn_events
        where type = 'memory.recorded' and data->>'slot' like $1 order by position`,
      [`${prefix}/%`],
    );
    const bySlot = new Map<string, string[]>();
    for (const row of rows) bySlot.set(row.slot, [...(bySlot.get(row.slot) ?? []), row.id]);
    return bySlot;
  } finally {
    await client.end();
  }
}

export type LogComparison = {
  lost: string[];
  duplicates: string[];
  /** Written, but the client never got the answer (it gave up, or the answer was lost with a process). */
  writtenUnacknowledged: number;
};

export function compareWithLog(outcomes: WriteOutcome[], inLog: Map<string, string[]>): LogComparison {
  const lost = outcomes
    .filter((o) => o.acknowledged !== null && !(inLog.get(o.slot) ?? []).includes(o.acknowledged.id))
    .map((o) => o.slot);
  const duplicates = [...inLog].filter(([, ids]) => ids.length > 1).map(([slot]) => slot);
  const writtenUnacknowledged = outcomes.filter((o) => o.acknowledged === null && inLog.has(o.slot)).length;
  return { lost, duplicates, writtenUnacknowledged };
}

/** Answers a client may see during an outage: 503/504/429 with Retry-After, or none in time. */
export function outageAnswerProblems(outcomes: WriteOutcome[]): string[] {
  const problems = new Map<string, number>();
  const note = (what: string) => problems.set(what, (problems.get(what) ?? 0) + 1);
  for (const attempt of outcomes.flatMap((o) => o.attempts)) {
    const { result } = attempt;
    if (result === 201 || result === "timeout" || result === "network") continue;
    if (result === 503 || result === 504 || result === 429) {
      if (attempt.retryAfter === null) note(`${result} without Retry-After`);
      continue;
    }
    note(`${result}`);
  }
  return [...problems].map(([what, count]) => `${count} × ${what}`);
}

/** How often each answer came, in a stable order: `201×300 503×12 timeout×2`. */
export function countResults(results: AttemptResult[]): string {
  const counts = new Map<string, number>();
  for (const r of results) counts.set(String(r), (counts.get(String(r)) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([r, n]) => `${r}×${n}`)
    .join(" ");
}

/**
 * Waits until the relay and every projection have caught up with the log, then asks the
 * doctor to compare every document of the tenant with the log. Returns what differs.
 */
export async function readModelDrift(stack: FaultStack, tenant: string): Promise<string[]> {
  const doctor = () =>
    call(stack.operator, maintenanceRpcs.doctor, { tenant, full: true }, { timeoutMs: 60_000 });
  let report: DoctorReport;
  try {
    report = await waitFor(
      async () => {
        const r = await doctor();
        const caughtUp = r.relay.backlog === 0 && r.projections.every((p) => p.lag === 0);
        return caughtUp && r.projections.length > 0 ? r : false;
      },
      { timeoutMs: 90_000, intervalMs: 1000, description: "the relay and every projection caught up" },
    );
  } catch (error) {
    return [`not caught up: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  for (const p of report.projections) {
    if (p.deadLetters > 0) problems.push(`${p.name}: ${p.deadLetters} dead letters`);
  }
  for (const d of report.drift) {
    const off = { missing: d.missing, stale: d.stale, unexplained: d.unexplained, notPurged: d.notPurged };
    for (const [kind, count] of Object.entries(off)) {
      if (count > 0)
        problems.push(`${d.readModel}: ${count} ${kind} (${d.ids[kind as keyof typeof off].join(", ")})`);
    }
  }
  if (report.drift.length === 0) problems.push("the doctor compared no read model");
  return problems;
}

/** Reads every acknowledged memory back through the gateway; returns those it could not. */
export async function unreadable(stack: FaultStack, outcomes: WriteOutcome[]): Promise<string[]> {
  const acknowledged = outcomes.flatMap((o) => (o.acknowledged ? [o.acknowledged.id] : []));
  const missing: string[] = [];
  for (let i = 0; i < acknowledged.length; i += 8) {
    await Promise.all(
      acknowledged.slice(i, i + 8).map(async (id) => {
        const response = await fetch(`${stack.baseUrl}/v1/memories/${id}`, {
          headers: { Authorization: `Bearer ${stack.apiKey}` },
        });
        if (response.status !== 200) missing.push(`${id} (${response.status})`);
      }),
    );
  }
  return missing;
}
