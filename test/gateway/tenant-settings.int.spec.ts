// Tenant settings through REST and MCP, against the real ingest and search services: an admin
// reads them with their version and changes some of them (a stale version is a 409, or an MCP
// error naming the read tool; a bad value a 422 naming the field), the change takes effect (a
// false positive allow-listed is then accepted), is recorded in the tenant's stream and shown in
// status, and a key that is not an admin's can do neither.
import { spawn } from "node:child_process";
import type { KeyName } from "@cairn/gateway/testing";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcpClient } from "../helpers/gateway-client.ts";
import { repoRoot } from "../helpers/service-processes.ts";
import { type HarnessSuite, startHarnessSuite } from "./gateway-stack.ts";

let suite: HarnessSuite;
const clients: Client[] = [];

async function mcp(key: KeyName): Promise<Client> {
  const { client } = await connectMcpClient(suite.gw.baseUrl, suite.gw.keys[key], { name: "settings-test" });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  suite = await startHarnessSuite("gateway_settings");
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await suite?.stop();
});

const rest: HarnessSuite["rest"] = (...args) => suite.rest(...args);

const fixtureToken = `ghp_${"f1x7ur3".repeat(6).slice(0, 36)}`;

describe("REST: /v1/settings", () => {
  it("an admin reads and changes the settings, with their version; the change takes effect", async () => {
    const empty = await rest("admin", "GET", "/v1/settings");
    expect(empty.status).toBe(200);
    expect(empty.headers.get("etag")).toBe('"0"');
    expect(await empty.json()).toEqual({});

    const note = { slot: "ci/fixture", content: `The CI fixture token is ${fixtureToken}.` };
    const refused = await rest("admin", "POST", "/v1/memories", note);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { code: string }).code).toBe("secret_detected");

    const changed = await rest(
      "admin",
      "PATCH",
      "/v1/settings",
      { secretAllowList: [fixtureToken], skipPatterns: ["^wip "] },
      { "If-Match": '"0"' },
    );
    expect(changed.status, await changed.clone().text()).toBe(200);
    expect(changed.headers.get("etag")).toBe('"1"');

    const read = await rest("admin", "GET", "/v1/settings");
    expect(read.headers.get("etag")).toBe('"1"');
    expect(await read.json()).toEqual({ secretAllowList: [fixtureToken], skipPatterns: ["^wip "] });
    expect((await rest("admin", "POST", "/v1/memories", note)).status).toBe(201);

    // Another change since version 0: refused, nothing recorded.
    const stale = await rest("admin", "PATCH", "/v1/settings", { skipPatterns: [] }, { "If-Match": '"0"' });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { code: string }).code).toBe("version_conflict");
    // Without If-Match the change applies to whatever is there; fields left out stay.
    expect((await rest("admin", "PATCH", "/v1/settings", { skipPatterns: [] })).status).toBe(200);
    const after = await rest("admin", "GET", "/v1/settings");
    expect(after.headers.get("etag")).toBe('"2"');
    expect(await after.json()).toEqual({ secretAllowList: [fixtureToken], skipPatterns: [] });
  });

  it("refuses a bad value by its field, an unknown field, and every key that is not an admin's", async () => {
    const badPattern = await rest("admin", "PATCH", "/v1/settings", { skipPatterns: ["(unclosed"] });
    expect(badPattern.status).toBe(422);
    expect(((await badPattern.json()) as { detail: string }).detail).toContain("skip pattern 0");
    const unknown = await rest("admin", "PATCH", "/v1/settings", { colour: "blue" });
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { code: string }).code).toBe("unknown_field");
    for (const key of ["alice", "reviewer"] as const) {
      expect((await rest(key, "GET", "/v1/settings")).status).toBe(403);
      expect((await rest(key, "PATCH", "/v1/settings", { skipPatterns: [] })).status).toBe(403);
    }
  });
});

describe("MCP: memory_settings_read and memory_settings_update", () => {
  it("an admin reads the settings with their version and changes them at that version", async () => {
    const admin = await mcp("admin");
    const read = await callTool(admin, "memory_settings_read");
    expect(read.isError).toBeFalsy();
    const first = read.structuredContent as {
      version: number;
      settings: Record<string, unknown>;
      effective: { rankingWeights: { halfLifeDays: number }; skipPatterns: string[] };
    };
    expect(first.version).toBeGreaterThanOrEqual(2);
    expect(first.effective.rankingWeights.halfLifeDays).toBeGreaterThan(0);

    const weights = { ...first.effective.rankingWeights, halfLifeDays: 14 };
    const changed = await callTool(admin, "memory_settings_update", {
      settings: { rankingWeights: weights, synonyms: [["k8s", "kubernetes"]] },
      version: first.version,
    });
    expect(changed.isError, JSON.stringify(changed.content)).toBeFalsy();
    expect((changed.structuredContent as { version: number }).version).toBe(first.version + 1);

    const again = (await callTool(admin, "memory_settings_read")).structuredContent as {
      version: number;
      settings: { rankingWeights: { halfLifeDays: number }; synonyms: string[][] };
      changedBy: string;
    };
    expect(again).toMatchObject({ version: first.version + 1, changedBy: "admin" });
    expect(again.settings.rankingWeights.halfLifeDays).toBe(14);
    expect(again.settings.synonyms).toEqual([["k8s", "kubernetes"]]);

    // At the version read before: refused, with what to do about it.
    const stale = await callTool(admin, "memory_settings_update", {
      settings: { skipPatterns: ["^draft "] },
      version: first.version,
    });
    expect(stale.isError).toBe(true);
    const error = (stale.structuredContent as { error: { code: string; hint: string } }).error;
    expect(error.code).toBe("version_conflict");
    expect(error.hint).toContain("memory_settings_read");
    expect(error.hint).toContain(`now version ${first.version + 1}`);

    // Recorded in the tenant's stream (so it replays), and shown in status to every key.
    const events = await suite.rest("admin", "GET", "/v1/events?stream=tenant-acme");
    const timeline = (await events.json()) as { events: { type: string; actor: string }[] };
    expect(timeline.events[0]).toMatchObject({ type: "tenant.settings_changed", actor: "admin" });
    const status = (await (await suite.rest("alice", "GET", "/v1/status")).json()) as {
      settings: { version: number; changedBy: string; set: string[]; workflowLock: unknown };
    };
    expect(status.settings).toMatchObject({
      version: first.version + 1,
      changedBy: "admin",
      workflowLock: null,
    });
    expect(status.settings.set).toEqual(["rankingWeights", "secretAllowList", "skipPatterns", "synonyms"]);
    const alice = await mcp("alice");
    const viaTool = (await callTool(alice, "memory_status")).structuredContent as {
      settings: { version: number };
    };
    expect(viaTool.settings.version).toBe(first.version + 1);
  });

  it("refuses a key that is not an admin's, with a hint", async () => {
    const reviewer = await mcp("reviewer");
    for (const [tool, args] of [
      ["memory_settings_read", {}],
      ["memory_settings_update", { settings: { skipPatterns: [] }, version: 0 }],
    ] as const) {
      const result = await callTool(reviewer, tool, args);
      expect(result.isError, tool).toBe(true);
      const error = (result.structuredContent as { error: { code: string; hint: string } }).error;
      expect(error.code).toBe("forbidden");
      expect(error.hint).toContain("admin");
    }
  });
});

/** `pnpm cairn settings …` against this suite's database and bus. */
function cli(args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["scripts/cairn.ts", "settings", ...args], {
      cwd: repoRoot,
      env: {
        ...process.env,
        CAIRN_DATABASE_URL: suite.infra.databaseUrl,
        CAIRN_NATS_URL: suite.infra.natsUrl,
        CAIRN_LOG_LEVEL: "warn",
      },
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
}

describe("pnpm cairn settings", () => {
  it("gets the settings with their version and sets some at that version", async () => {
    const got = await cli(["get", "--tenant", "acme", "--json"]);
    expect(got.code, got.stderr).toBe(0);
    const before = JSON.parse(got.stdout) as { version: number; effective: { retrieval?: unknown } };
    expect(before.version).toBeGreaterThan(0);

    const lock = { reason: "release freeze", expiresAt: "2999-01-01T00:00:00.000Z" };
    const set = await cli([
      "set",
      "--tenant",
      "acme",
      "--version",
      String(before.version),
      JSON.stringify({ workflowLock: lock }),
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain(`version ${before.version + 1}`);
    // The same change seen through REST, and the lock in everyone's status.
    const read = await rest("admin", "GET", "/v1/settings");
    expect(read.headers.get("etag")).toBe(`"${before.version + 1}"`);
    expect(((await read.json()) as { workflowLock: unknown }).workflowLock).toEqual(lock);
    const status = (await (await rest("bob", "GET", "/v1/status")).json()) as {
      settings: { workflowLock: unknown; changedBy: string };
    };
    expect(status.settings).toMatchObject({ workflowLock: lock, changedBy: "cli" });

    const stale = await cli([
      "set",
      "--tenant",
      "acme",
      "--version",
      String(before.version),
      '{"workflowLock":null}',
    ]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("version_conflict");
    const bad = await cli(["set", "--tenant", "acme", '{"rankingWeights":{"halfLifeDays":-1}}']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("rankingWeights");
    const text = await cli(["get", "--tenant", "acme"]);
    expect(text.stdout).toContain(`settings version ${before.version + 1}`);
    expect(text.stdout).toContain("release freeze");
    // The lock lifted again, for the suites after this one.
    expect((await cli(["set", "--tenant", "acme", '{"workflowLock":null}'])).code).toBe(0);
  });
});
