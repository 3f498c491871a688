// The maintenance service as `pnpm start` runs it (every service a process): its scheduler
// runs each tenant's due jobs by itself, records them in the log, and counts them in
// `cairn_maintenance_job_runs_total{job, outcome}`, which the dashboard reads.
import { call, connectBus } from "@cairn/bus";
import { commandRpc, type MaintenanceRunRecord } from "@cairn/contracts";
import { waitFor } from "@cairn/testing";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type CairnDeployment, startCairn } from "../e2e/gateway-harness.ts";

let cairn: CairnDeployment;

beforeAll(async () => {
  cairn = await startCairn({ CAIRN_MAINTENANCE_TICK_MS: "300" });
}, 120_000);

afterAll(async () => {
  await cairn?.stop();
});

it("runs every enabled job of a tenant on schedule, once, and counts the runs", async () => {
  const nc = await connectBus({ url: cairn.env.CAIRN_NATS_URL as string, name: "e2e-maintenance" });
  const pool = new pg.Pool({ connectionString: cairn.env.CAIRN_DATABASE_URL, max: 2 });
  pool.on("error", () => {}); // idle clients still closing when the server stops
  try {
    await call(
      nc,
      commandRpc("memory.create"),
      {
        principal: { tenant: "acme", agent: "alice", role: "agent", primary: false },
        memory: { slot: "release-checklist", kind: "workflow", content: "Tag, build, publish, announce." },
      },
      { timeoutMs: 15_000 },
    );
    const records = await waitFor(
      async () => {
        const { rows } = await pool.query<{ data: MaintenanceRunRecord }>(
          "select data from cairn_events where type = 'maintenance.run_recorded' and meta->>'tenant' = 'acme'",
        );
        return rows.length >= 6 ? rows.map((r) => r.data) : false;
      },
      { timeoutMs: 60_000, intervalMs: 300, description: "six scheduled maintenance runs recorded" },
    );
    expect(records.map((r) => r.job).sort()).toEqual([
      "consolidation",
      "dedup",
      "forgetting",
      "gc",
      "synonyms",
      "verification",
    ]);
    expect(records.every((r) => r.trigger === "schedule" && r.requestedBy === "maintenance")).toBe(true);
    const verification = records.find((r) => r.job === "verification");
    expect(verification?.actions).toMatchObject([{ action: "remind_verification", status: "applied" }]);

    const line = cairn.services.logs.find((l) => l.startsWith("maintenance") && l.includes("metrics served"));
    const port = Number(/"port":(\d+)/.exec(line ?? "")?.[1]);
    expect(port).toBeGreaterThan(0);
    // A run is counted once its record is written: the last one may still be on its way.
    const counted = [
      /^cairn_maintenance_job_runs_total\{job="verification",outcome="ok"[^}]*\} 1$/m,
      /^cairn_maintenance_job_duration_seconds_count\{job="gc"[^}]*\} 1$/m,
    ];
    const metrics = await waitFor(
      async () => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return counted.every((pattern) => pattern.test(text)) ? text : false;
      },
      { timeoutMs: 10_000, intervalMs: 200, description: "every run counted in the metrics" },
    );
    for (const pattern of counted) expect(metrics).toMatch(pattern);
  } finally {
    await nc.close();
    await pool.end();
  }
});
