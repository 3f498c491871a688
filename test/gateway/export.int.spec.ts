// Export through the gateway, against the real ingest and search services: REST streams what
// the key may see as Cairn JSON Lines (another agent's private memory is not in it) and ends
// with an end line, the MCP tool gives the same records a page at a time, and the file reads
// back as an import plan; memories too large for one bus message a page are paged by size; a
// search outage part way through ends the stream with an end line that says so.
import { once } from "node:events";
import { get, type IncomingMessage } from "node:http";

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
    const [header, ...lines] = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(header).toMatchObject({ format: "cairn-export", tenant: "acme" });
    // The last line says the export is whole, and how many records it holds.
    const end = lines.pop();
    const records = lines;
    expect(end).toEqual({ end: true, records: records.length, complete: true });
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
      .slice(1, -1)
      .map((line) => JSON.parse(line) as { scope: string });
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => r.scope === "agent")).toBe(true);
  });
});

describe("large exports and outages", () => {
  // Enough large memories that the export is several pages of the bus's size and more than the
  // sockets between gateway and client hold while the client does not read.
  const count = 150;
  const big = (i: number) =>
    `Runbook note ${i}. ${Array.from({ length: 2400 }, (_, w) => `step${i}x${w}`).join(" ")}`.slice(
      0,
      31_000,
    );

  it("pages memories too large for one message, and says when the stream stopped early", async () => {
    const file = JSON.stringify({
      results: Array.from({ length: count }, (_, i) => ({ id: `big-${i}`, memory: big(i), user_id: "ops" })),
    });
    const imported = await fetch(`${suite.gw.baseUrl}/v1/import?from=mem0&apply=true`, {
      method: "POST",
      headers: { authorization: `Bearer ${suite.gw.keys.lead}`, "content-type": "application/json" },
      body: file,
    });
    expect(imported.status, await imported.clone().text()).toBe(200);
    const summary = (await imported.json()) as { created: number; position: number };
    expect(summary.created, JSON.stringify(summary).slice(0, 2000)).toBe(count);
    const { position } = summary;
    expect((await rest("lead", "GET", `/v1/memories?afterPosition=${position}&limit=1`)).status).toBe(200);

    // Whole: every record, over pages the size of the bus's messages.
    const whole = (await (await rest("lead", "GET", "/v1/export")).text()).trim().split("\n");
    const end = JSON.parse(whole.at(-1) as string) as { records: number; complete: boolean };
    expect(end.complete).toBe(true);
    expect(end.records).toBe(whole.length - 2);
    expect(whole.filter((line) => line.includes("Runbook note"))).toHaveLength(count);

    // Part way: the client holds back, search goes away, then the client reads on.
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      get(
        `${suite.gw.baseUrl}/v1/export`,
        { headers: { authorization: `Bearer ${suite.gw.keys.lead}` } },
        resolve,
      ).on("error", reject);
    });
    res.pause();
    expect(res.statusCode).toBe(200);
    const search = suite.services.find((s) => s.name === "search");
    await search?.stop();
    const chunks: Buffer[] = [];
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.resume();
    await once(res, "end");
    const lines = Buffer.concat(chunks).toString("utf8").trim().split("\n");
    const stopped = JSON.parse(lines.at(-1) as string) as {
      end: boolean;
      records: number;
      complete: boolean;
      error: { code: string; hint: string };
    };
    expect(stopped).toMatchObject({ end: true, complete: false });
    // Search is gone: no copy answers (`unavailable`), or the request was sent as it left (`timeout`).
    expect(["unavailable", "timeout"]).toContain(stopped.error.code);
    expect(stopped.error.hint).toBeTruthy();
    expect(stopped.records).toBe(lines.length - 2);
    expect(stopped.records).toBeLessThan(end.records);
    // What arrived reads back as a partial export, and says so.
    const plan = importCairnExport(`${lines.join("\n")}\n`);
    expect(plan.items).toHaveLength(stopped.records);
    expect(plan.problems.map((p) => p.message).join("\n")).toContain("the export stopped early");
  }, 180_000);
});
