// Import and export through the command line against the real services: a tenant exported,
// imported into an empty tenant and exported again gives the same memories (ids map; content,
// history, links, keys, tiers and statuses equal); a second import of the same file adds
// nothing; files in foreign formats (mem0, the MCP reference memory server, a Markdown vault,
// keymem) arrive as memories, with a secret refused and reported.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, connectBus } from "@cairn/bus";
import { type CairnExportRecord, type CommandName, commandRpc, type RpcDefinition } from "@cairn/contracts";
import type { ServiceHandle } from "@cairn/service-runtime";
import { infraTest } from "@cairn/testing";
import { afterAll, describe, expect } from "vitest";
import { prepareInfra, startServices, stopServices, testServiceEnv } from "../helpers/in-process-services.ts";
import { repoRoot } from "../helpers/service-processes.ts";

const dir = mkdtempSync(join(tmpdir(), "cairn-portability-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const test = infraTest.extend("cairn", async ({ databaseUrl, redis, nats, uniqueName }, { onCleanup }) => {
  const infra = { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, uniqueName };
  await prepareInfra(infra);
  const env = testServiceEnv(infra);
  const handles: ServiceHandle[] = await startServices(env, ["ingest", "search", "ranking"]);
  const nc = await connectBus({ url: nats.url, name: `portability-${uniqueName}` });
  onCleanup(async () => {
    await nc.close();
    await stopServices(handles);
  });
  const send = (tenant: string, command: string, payload: Record<string, unknown>) =>
    call(nc, commandRpc(command as CommandName) as RpcDefinition, {
      principal: { tenant, agent: "ada", role: "admin", primary: true },
      ...payload,
    }) as Promise<{ id: string; version: number; token?: string }>;
  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ["scripts/cairn.ts", ...args], {
        cwd: repoRoot,
        env: { ...process.env, ...env, CAIRN_LOG_LEVEL: "warn" },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d;
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d;
      });
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  return { send, cli };
});

/** What must survive a round trip, without ids, times and authors. */
function comparable(records: CairnExportRecord[]) {
  return records
    .map((r) => ({
      tier: r.tier,
      status: r.status,
      slot: r.slot,
      kind: r.kind,
      title: r.title,
      content: r.content,
      tags: r.tags,
      keys: r.keys,
      links: r.links,
      texts: r.versions.flatMap((v) => [v.title ?? "", v.content ?? ""]).filter((t) => t !== ""),
    }))
    .sort((a, b) => `${a.tier}/${a.slot}/${a.status}`.localeCompare(`${b.tier}/${b.slot}/${b.status}`));
}

/** The records of an export file; it must end with the end line of a whole export. */
function readExport(path: string): CairnExportRecord[] {
  const lines = readFileSync(path, "utf8").trim().split("\n");
  const records = lines.slice(1, -1).map((line) => JSON.parse(line) as CairnExportRecord);
  expect(JSON.parse(lines.at(-1) as string)).toEqual({ end: true, records: records.length, complete: true });
  return records;
}

describe("import and export", () => {
  // Each step runs the command line as a process: minutes on a loaded machine.
  test("a tenant exported and imported into an empty one exports the same again; twice adds nothing", {
    timeout: 240_000,
  }, async ({ cairn }) => {
    const deploy = await cairn.send("acme", "memory.create", {
      memory: {
        slot: "deploy/steps",
        content: "Deploy the canary first.",
        keys: ["deployment"],
        tags: ["ops"],
      },
    });
    await cairn.send("acme", "memory.update", {
      id: deploy.id,
      expectedVersion: 1,
      changes: { content: "Deploy the canary first, then the fleet. See [[ops/rollback]]." },
    });
    await cairn.send("acme", "memory.create", {
      memory: { slot: "ops/rollback", content: "Roll back with the previous tag." },
    });
    const old = await cairn.send("acme", "memory.create", {
      memory: { slot: "db/host", content: "DB on db-1." },
    });
    const plan = await cairn.send("acme", "memory.supersede", {
      id: old.id,
      expectedVersion: 1,
      replacement: { content: "DB on db-2." },
      reason: "moved",
      dryRun: true,
    });
    await cairn.send("acme", "memory.supersede", {
      id: old.id,
      expectedVersion: 1,
      replacement: { content: "DB on db-2." },
      reason: "moved",
      token: plan.token,
    });
    const proposal = await cairn.send("acme", "proposal.submit", {
      proposal: { slot: "style/tabs", content: "Tabs, not spaces." },
    });
    await cairn.send("acme", "proposal.reject", { id: proposal.id, expectedVersion: 1, reason: "no" });
    await cairn.send("acme", "handoff.open", {
      handoff: { slot: "handoff/migration", content: "Half done." },
    });

    const first = join(dir, "acme.jsonl");
    const exported = await cairn.cli(["export", "--tenant", "acme", "--out", first]);
    expect(exported.code, exported.stderr).toBe(0);
    const original = readExport(first);
    expect(original.map((r) => r.slot).sort()).toEqual(
      ["db/host", "db/host", "deploy/steps", "handoff/migration", "ops/rollback", "style/tabs"].sort(),
    );

    const dry = await cairn.cli(["import", "--from", "cairn", first, "--tenant", "globex"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("dry run");
    const applied = await cairn.cli([
      "import",
      "--from",
      "cairn",
      first,
      "--tenant",
      "globex",
      "--apply",
      "--json",
    ]);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ records: 6, created: 6, refused: [] });

    const second = join(dir, "globex.jsonl");
    expect((await cairn.cli(["export", "--tenant", "globex", "--out", second])).code).toBe(0);
    expect(comparable(readExport(second))).toEqual(comparable(original));

    const again = await cairn.cli([
      "import",
      "--from",
      "cairn",
      first,
      "--tenant",
      "globex",
      "--apply",
      "--json",
    ]);
    expect(JSON.parse(again.stdout), again.stdout).toMatchObject({
      records: 6,
      created: 0,
      alreadyImported: 6,
      stepsApplied: 0,
      applied: true,
      duplicates: [],
      refused: [],
    });
    const third = join(dir, "globex-again.jsonl");
    expect((await cairn.cli(["export", "--tenant", "globex", "--out", third])).code).toBe(0);
    expect(readExport(third)).toEqual(readExport(second));

    const vault = join(dir, "vault");
    expect(
      (await cairn.cli(["export", "--tenant", "acme", "--format", "markdown", "--out", vault])).code,
    ).toBe(0);
    const note = readFileSync(join(vault, "deploy", "steps.md"), "utf8");
    expect(note).toContain("[[ops/rollback]]");
    expect(note).toMatch(/^---\n/);
  });

  test("foreign formats arrive as memories; a secret in one is refused and reported", {
    timeout: 240_000,
  }, async ({ cairn }) => {
    const mem0 = join(dir, "mem0.json");
    writeFileSync(
      mem0,
      JSON.stringify({
        results: [
          {
            id: "m1",
            memory: "Prefers dark mode in every editor.",
            user_id: "ana",
            created_at: "2025-01-01T00:00:00Z",
          },
          {
            id: "m2",
            memory: `The deploy token is ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`,
            user_id: "ana",
          },
        ],
      }),
    );
    const serverMemory = join(dir, "memory.jsonl");
    writeFileSync(
      serverMemory,
      [
        { type: "entity", name: "Cairn", entityType: "project", observations: ["Written in TypeScript."] },
        { type: "entity", name: "NATS", entityType: "technology", observations: ["Carries the events."] },
        { type: "relation", from: "Cairn", to: "NATS", relationType: "uses" },
      ]
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );
    const vault = join(dir, "obsidian");
    mkdirSync(vault, { recursive: true });
    writeFileSync(
      join(vault, "Release.md"),
      "---\ntags: [ops]\n---\nRelease on Tuesdays. See [[Checklist]].\n",
    );
    writeFileSync(join(vault, "Checklist.md"), "Run the migrations first.\n");
    const keymem = join(dir, "graph.json");
    writeFileSync(
      keymem,
      JSON.stringify({
        keys: { k1: { id: "k1", concept: "billing", aliases: ["invoicing"] } },
        memories: {
          n1: { id: "n1", content: "Invoices go out on the first of the month.", created_at: 1.7e9 },
        },
        links: [{ key_id: "k1", memory_id: "n1", weight: 0.9 }],
      }),
    );
    const results: Record<string, { created: number; refused: { code: string }[] }> = {};
    for (const [from, path] of [
      ["mem0", mem0],
      ["server-memory", serverMemory],
      ["markdown", vault],
      ["keymem", keymem],
    ] as const) {
      const run = await cairn.cli([
        "import",
        "--from",
        from,
        path,
        "--tenant",
        "initech",
        "--apply",
        "--json",
      ]);
      expect(run.stdout, `${from}: ${run.stderr}`).not.toBe("");
      results[from] = JSON.parse(run.stdout);
    }
    // The same memory again from another export: reported with the memory that holds it.
    const mem0Again = join(dir, "mem0-again.json");
    writeFileSync(
      mem0Again,
      JSON.stringify([{ id: "x9", memory: "Prefers dark mode in every editor.", user_id: "ana" }]),
    );
    const again = await cairn.cli([
      "import",
      "--from",
      "mem0",
      mem0Again,
      "--tenant",
      "initech",
      "--apply",
      "--json",
    ]);
    const duplicate = JSON.parse(again.stdout) as { created: number; duplicates: { holderId: string }[] };
    expect(duplicate.created).toBe(0);
    expect(duplicate.duplicates).toHaveLength(1);
    expect(results.mem0?.created).toBe(1);
    expect(results.mem0?.refused.map((r) => r.code)).toEqual(["secret_detected"]);
    expect(results["server-memory"]?.created).toBeGreaterThanOrEqual(2);
    expect(results.markdown?.created).toBe(2);
    expect(results.keymem?.created).toBe(1);

    const out = join(dir, "initech.jsonl");
    expect((await cairn.cli(["export", "--tenant", "initech", "--out", out])).code).toBe(0);
    const records = readExport(out);
    expect(records.map((r) => r.content).join("\n")).not.toContain("ghp_");
    const release = records.find((r) => r.content.includes("Release on Tuesdays"));
    expect(release?.tags).toContain("ops");
    expect(release?.links.length).toBe(1);
    expect(records.find((r) => r.content.startsWith("Invoices"))?.keys).toContain("billing");
    expect(duplicate.duplicates[0]?.holderId).toBe(records.find((r) => r.content.startsWith("Prefers"))?.id);
  });
});
