// `pnpm cairn maintenance` and `pnpm cairn doctor` as a person runs them, against the back end
// running in this process: a GC preview prints its token, applying with it purges that set;
// the doctor prints JSON or Markdown, and builds the report itself when the service is down.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { DoctorReport, MaintenanceStatusReply } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { repoRoot } from "../helpers/service-processes.ts";
import { alice, type Cairn, cairnTest, dayMs } from "./maintenance-harness.ts";

const exec = promisify(execFile);
const test = cairnTest();

async function cli(cairn: Cairn, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ["scripts/cairn.ts", ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...cairn.env, CAIRN_LOG_LEVEL: "silent" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("pnpm cairn maintenance and doctor", () => {
  test("previews a GC with its token, applies exactly that set, and shows the schedules", async ({
    cairn,
  }) => {
    const m = await cairn.create({ slot: "old-thing", content: "An old thing nobody needs." });
    await cairn.twoStep("memory.delete", { principal: alice, id: m.id, expectedVersion: 1, reason: null });
    cairn.clock.now = new Date(Date.now() + 40 * dayMs);

    const usage = await cli(cairn, ["maintenance"]);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toContain(
      "jobs: consolidation, forgetting, dedup, synonyms, verification, gc, repair",
    );

    const dry = await cli(cairn, ["maintenance", "gc", "--tenant", "acme"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^gc \(dry run\) for acme: ok, examined 1, 1 action\(s\)/);
    expect(dry.stdout).toContain(`planned  purge                ${m.id}`);
    const token = /token \(valid until [^)]+\):\n\s+(\S+)/.exec(dry.stdout)?.[1];
    expect(token).toEqual(expect.any(String));

    const apply = ["maintenance", "gc", "--tenant", "acme", "--apply", "--token", token as string];
    const applied = await cli(cairn, apply);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/^gc \(applied\) for acme: ok/);
    await cairn.settle();
    expect((await cairn.get(m.id)).document.purgedAt).toEqual(expect.any(String));
    const again = await cli(cairn, apply);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain("error token_invalid");

    const withParams = await cli(cairn, [
      "maintenance",
      "verification",
      "--param",
      "reviewDays=30",
      "--json",
    ]);
    expect(withParams.code).toBe(0);
    expect(JSON.parse(withParams.stdout.trim())).toMatchObject({
      job: "verification",
      params: { reviewDays: 30 },
    });

    const status = await cli(cairn, ["maintenance", "status", "--json"]);
    const parsed = JSON.parse(status.stdout) as MaintenanceStatusReply;
    expect(parsed.tenants.map((t) => t.tenant)).toEqual(["acme"]);
    const gc = parsed.tenants[0]?.jobs.find((j) => j.job === "gc");
    expect(gc).toMatchObject({
      enabled: true,
      everyMinutes: 1440,
      apply: false,
      lastRun: { outcome: "failed" },
    });
  });

  test("the doctor prints JSON or Markdown, and works without the maintenance service", async ({ cairn }) => {
    await cairn.create({ slot: "fix-note", kind: "fix", content: "Clear the cache after upgrading." });
    await cairn.settle();
    const json = await cli(cairn, ["doctor", "--format", "json", "--full"]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as DoctorReport;
    expect(report).toMatchObject({ status: "ok", mode: "full", verification: { due: 1 } });
    expect(json.stdout).not.toContain("Clear the cache");

    const md = await cli(cairn, ["doctor", "--summary"]);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^# Cairn doctor: ok/);

    await cairn.stopMaintenance();
    const local = await cli(cairn, ["doctor", "--format", "json", "--tenant", "acme"]);
    expect(local.stderr).toContain("building the report here");
    // Built here, the report still covers the other services' read models; the stopped
    // service's own read model is the one thing it cannot see, and it says so.
    const built = JSON.parse(local.stdout) as DoctorReport;
    expect(built).toMatchObject({ status: "warn", tenant: "acme", mode: "sample" });
    expect(
      built.findings.filter((f) => f.severity === "warn").map((f) => [f.code, f.message.split(" ")[0]]),
    ).toEqual([["unavailable", "maintenance"]]);
    expect(built.projections.map((p) => p.name)).toEqual([
      "search.lexical",
      "search.vector",
      "ranking.signals",
      "ranking.keys",
    ]);
    expect((await cli(cairn, ["doctor", "--format", "yaml"])).code).toBe(2);
  });
});
