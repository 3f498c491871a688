// Verification reminders report and never change anything; every run, dry or applied, is
// recorded in the log as `maintenance.run_recorded` on its own stream; only admins run jobs.
import { type MaintenanceRunRecord, streamIdFor } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { admin, alice, cairnTest, dayMs } from "./maintenance-harness.ts";

const test = cairnTest();

describe("maintenance: verification reminders and run records", () => {
  test("reports unverified constraints, fixes and workflows, changes nothing, records the run", async ({
    cairn,
  }) => {
    const constraint = await cairn.create({
      slot: "no-friday-deploys",
      kind: "constraint",
      content: "No deploys on Fridays.",
    });
    const fix = await cairn.create({
      slot: "flaky-test-fix",
      kind: "fix",
      content: "Retry the flaky upload test once.",
    });
    const fact = await cairn.create({ slot: "office-city", kind: "fact", content: "The office is in Lyon." });
    const workflow = await cairn.create({
      slot: "release-steps",
      kind: "workflow",
      content: "Tag, build, publish.",
    });
    await cairn.send("memory.verify", { principal: alice, id: workflow.id, expectedVersion: 1, note: null });
    const before = await cairn.store.lastCommittedPosition();

    const dry = await cairn.run("verification");
    expect(dry).toMatchObject({
      job: "verification",
      mode: "dry_run",
      outcome: "ok",
      recorded: true,
      tenant: "acme",
    });
    expect(dry.actions.map((a) => a.ids[0]).sort()).toEqual([constraint.id, fix.id].sort());
    expect(dry.actions.every((a) => a.status === "planned" && a.action === "remind_verification")).toBe(true);
    expect(dry.actions[0]?.reasons[0]).toMatch(/^never verified/);

    // Past the review period, the verified workflow is due again.
    cairn.clock.now = new Date(Date.now() + 200 * dayMs);
    const applied = await cairn.run("verification", { apply: true });
    expect(applied.actions.map((a) => a.ids[0]).sort()).toEqual([constraint.id, fix.id, workflow.id].sort());
    expect(applied.actions.find((a) => a.ids[0] === workflow.id)?.reasons[0]).toMatch(
      /^last verified 20\d days ago > 180$/,
    );
    expect(applied.actions.some((a) => a.ids[0] === fact.id)).toBe(false);

    // Nothing but the two run records was written.
    const written = await cairn.logAfter(before);
    expect(written.map((e) => e.type)).toEqual(["maintenance.run_recorded", "maintenance.run_recorded"]);
    const [record] = await cairn.store.readStream(streamIdFor("maintenance", applied.runId));
    expect(record).toMatchObject({
      streamType: "maintenance",
      type: "maintenance.run_recorded",
      meta: { tenant: "acme", actor: "maintenance", correlationId: applied.runId },
    });
    const data = record?.data as MaintenanceRunRecord;
    expect(data).toMatchObject({
      runId: applied.runId,
      job: "verification",
      mode: "apply",
      requestedBy: "ada",
    });
    expect(data.actions).toEqual(applied.actions);
    // No content in a run record.
    expect(JSON.stringify(written)).not.toMatch(/Fridays|Lyon|flaky upload/);
  });

  test("only an admin runs a job; bad parameters are refused by name", async ({ cairn }) => {
    await expect(cairn.run("verification", { principal: alice })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(cairn.run("gc", { params: { olderThanDays: -1 } })).rejects.toMatchObject({
      code: "validation_failed",
    });
    await expect(cairn.run("gc", { params: { older: 3 } })).rejects.toMatchObject({
      code: "validation_failed",
    });
    await expect(cairn.run("dedup", { token: "x" })).rejects.toMatchObject({ code: "validation_failed" });
    const status = await cairn.run("verification", { principal: admin });
    expect(status.outcome).toBe("ok");
  });
});
