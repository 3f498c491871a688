// Two copies of the maintenance service never run a tenant's jobs at the same time: while one
// run holds the tenant's lock every other request, to either copy, is refused; and when both
// copies' schedulers find the same jobs due, each job runs once.
import { randomUUID } from "node:crypto";
import { call } from "@cairn/bus";
import {
  type CairnError,
  type MaintenanceRunRecord,
  maintenanceJobs,
  maintenanceRpcs,
} from "@cairn/contracts";
import { createDatabasePool } from "@cairn/event-store";
import { createTenantLocks, extractiveSummarizer, type Summarizer } from "@cairn/maintenance";
import { waitFor } from "@cairn/testing";
import { describe, expect } from "vitest";
import { admin, cairnTest, dayMs } from "./maintenance-harness.ts";

/** A summarizer that holds the run until the test lets it go. */
function gatedSummarizer() {
  let enter: () => void = () => {};
  let release: () => void = () => {};
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const summarizer: Summarizer = {
    name: "gated",
    async summarize(input) {
      enter();
      await gate;
      return extractiveSummarizer.summarize(input);
    },
  };
  return { summarizer, entered, release: () => release() };
}

const gated = gatedSummarizer();
const test = cairnTest({ summarizer: gated.summarizer });

describe("maintenance: one runner at a time", () => {
  test("the tenant lock is taken by one session at a time and released with it", async ({ databaseUrl }) => {
    const pools = [0, 1].map(() => createDatabasePool({ connectionString: databaseUrl, max: 2 }));
    try {
      const [a, b] = pools.map(createTenantLocks);
      const held = await a?.tryAcquire("acme");
      expect(held).toBeDefined();
      expect(await b?.tryAcquire("acme")).toBeUndefined();
      expect(await a?.tryAcquire("acme")).toBeUndefined();
      const other = await b?.tryAcquire("globex");
      expect(other).toBeDefined();
      await held?.release();
      const next = await b?.tryAcquire("acme");
      expect(next).toBeDefined();
      await next?.release();
      await other?.release();
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  test("while a run holds the lock, both copies refuse other runs of the tenant", async ({ cairn }) => {
    await cairn.startMaintenanceCopy();
    const contents = [
      "Invoices are exported to the accounting share every night.",
      "The accounting share receives the invoice export at night.",
      "Every night the invoices go to the accounting share as an export.",
    ];
    for (const [i, content] of contents.entries()) {
      await cairn.create({ slot: `invoice-export-${i}`, kind: "fact", content, tags: ["invoices"] });
    }
    cairn.clock.now = new Date(Date.now() + 10 * dayMs);

    const first = cairn.run("consolidation", { apply: true });
    await gated.entered;
    const refusedBy = new Set<string>();
    for (let i = 0; i < 24 && refusedBy.size < 2; i += 1) {
      const job = maintenanceJobs[i % maintenanceJobs.length] as (typeof maintenanceJobs)[number];
      const error = await call(cairn.nc, maintenanceRpcs.run, {
        principal: admin,
        job,
        runId: randomUUID(),
      }).then(
        () => undefined,
        (e: CairnError) => e,
      );
      expect(error).toMatchObject({ code: "unavailable", details: { reason: "locked", tenant: "acme" } });
      refusedBy.add(String(error?.details?.instance));
    }
    // Both copies answered, and both refused.
    expect(refusedBy.size).toBe(2);
    gated.release();
    const done = await first;
    expect(done).toMatchObject({ outcome: "ok", job: "consolidation" });
    expect(done.actions[0]?.status).toBe("applied");
    // The lock is free again.
    expect((await cairn.run("verification")).outcome).toBe("ok");
  });

  test("two schedulers that find the same jobs due run each of them once", async ({ cairn }) => {
    const created = await cairn.create({
      slot: "some-fact",
      kind: "fact",
      content: "The wiki moved to the new host.",
    });
    // The schedulers read the log up to its safe horizon; wait until the write is below it.
    await waitFor(async () => (await cairn.store.lastPosition()) >= created.position, {
      timeoutMs: 20_000,
      description: "the write readable in the log",
    });
    const copies = [
      await cairn.startMaintenanceCopy({
        env: { CAIRN_MAINTENANCE_SCHEDULER: "1", CAIRN_MAINTENANCE_TICK_MS: "60000" },
      }),
      await cairn.startMaintenanceCopy({
        env: { CAIRN_MAINTENANCE_SCHEDULER: "1", CAIRN_MAINTENANCE_TICK_MS: "60000" },
      }),
    ];
    const schedulers = copies.map((c) => c.service.scheduler());
    expect(schedulers.every((s) => s !== undefined)).toBe(true);
    for (let round = 0; round < 3; round += 1) await Promise.all(schedulers.map((s) => s?.tick()));

    const records = (await cairn.logAfter(0))
      .filter((e) => e.type === "maintenance.run_recorded")
      .map((e) => e.data as MaintenanceRunRecord);
    const scheduled = records
      .filter((r) => r.trigger === "schedule")
      .map((r) => r.job)
      .sort();
    // Every job enabled by default, once (repair is off by default); forgetting and GC as dry runs.
    expect(scheduled).toEqual(["consolidation", "dedup", "forgetting", "gc", "synonyms", "verification"]);
    expect(records.find((r) => r.job === "forgetting")?.mode).toBe("dry_run");
    expect(records.find((r) => r.job === "gc")?.mode).toBe("dry_run");
    expect(records.find((r) => r.job === "dedup")?.mode).toBe("apply");

    // A tenant switches a job off in its settings: the schedulers leave it alone.
    await cairn.send("tenant.change_settings", {
      principal: admin,
      settings: { maintenance: { verification: { enabled: false }, dedup: { everyMinutes: 1 } } },
    });
    cairn.clock.now = new Date(Date.now() + 3 * 60_000);
    for (let round = 0; round < 2; round += 1) await Promise.all(schedulers.map((s) => s?.tick()));
    const later = (await cairn.logAfter(0))
      .filter((e) => e.type === "maintenance.run_recorded")
      .map((e) => e.data as MaintenanceRunRecord)
      .filter((r) => r.trigger === "schedule");
    expect(later.filter((r) => r.job === "verification")).toHaveLength(1);
    expect(later.filter((r) => r.job === "dedup")).toHaveLength(2);
  });
});
