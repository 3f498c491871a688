// Export through the gateway, against the real ingest and search services: REST streams what
// the key may see as Cairn JSON Lines (another agent's private memory is not in it), the MCP
// tool gives the same records a page at a time, and the file reads back as an import plan.

import type { KeyName } from "@cairn/gateway/testing";
import { importCairnExport } from "@cairn/portability";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcpClient } from "../helpers/gateway-client.ts";
import { type HarnessSuite, startHarnessSuite } from "./gateway-stack.ts";

let suite: HarnessSuite;
const clients: Client[] = [];

beforeAll(async () => {
  suite = await startHarnessSuite("gateway_export");
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await suite?.stop();
});

const rest: HarnessSuite["rest"] = (...args) => suite.rest(...args);

async function create(key: KeyName, body: Record<string, unknown>): Promise<string> {
  const res = await rest(key, "POST", "/v1/memories", body);
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe("export through the gateway", () => {
  it("streams what the key may see as JSON Lines, the same as the MCP tool's pages", async () => {
    const team = await create("alice", { slot: "export/team", content: "Builds run on the shared runners." });
    const revised = await rest(
      "alice",
      "PATCH",
      `/v1/memories/${team}`,
      { content: "Builds run on the shared runners, in eu." },
      { "If-Match": '"1"' },
    );
    expect(revised.status).toBe(200);
    const own = await create("alice", {
      slot: "export/own",
      content: "My own scratch note.",
      scope: "agent",
    });
    const bobs = await create("bob", { slot: "export/bob", content: "Bob's private note.", scope: "agent" });

    const res = await rest("alice", "GET", "/v1/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const text = await res.text();
    const [header, ...records] = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(header).toMatchObject({ format: "cairn-export", tenant: "acme" });
    const ids = records.map((r: { id: string }) => r.id);
    expect(ids).toContain(team);
    expect(ids).toContain(own);
    expect(ids).not.toContain(bobs);
    const teamRecord = records.find((r: { id: string }) => r.id === team);
    expect(teamRecord.versions.map((v: { content: string | null }) => v.content)).toEqual([
      "Builds run on the shared runners.",
      "Builds run on the shared runners, in eu.",
    ]);
    // What it wrote is what the importer reads.
    const plan = importCairnExport(text);
    expect(plan.problems).toEqual([]);
    expect(plan.items).toHaveLength(records.length);

    const { client } = await connectMcpClient(suite.gw.baseUrl, suite.gw.keys.alice, { name: "export-test" });
    clients.push(client);
    const paged: string[] = [];
    let after = 0;
    for (;;) {
      const result = await callTool(client, "memory_export", { after, limit: 1 });
      expect(result.isError).toBeFalsy();
      const page = result.structuredContent as { records: { id: string }[]; next: number | null };
      paged.push(...page.records.map((r) => r.id));
      if (page.next === null) break;
      after = page.next;
    }
    expect(paged).toEqual(ids);
  });

  it("exports only a scope when asked", async () => {
    const res = await rest("alice", "GET", "/v1/export?scope=agent");
    const records = (await res.text())
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line) as { scope: string });
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.scope === "agent")).toBe(true);
  });
});
