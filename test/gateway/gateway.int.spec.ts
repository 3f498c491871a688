// The gateway in this process against the real ingest, search and ranking services (also in
// this process) on real Postgres, Redis and NATS: MCP over streamable HTTP and in memory, REST,
// authentication, Origin, sessions, rate and body limits, and the OpenAPI document.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  createInMemoryMcpServer,
  type GatewayHarness,
  type KeyName,
  routesOf,
  startGatewayHarness,
  teamKeys,
} from "@cairn/gateway/testing";
import type { ServiceHandle } from "@cairn/service-runtime";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { compileErrors, validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callTool as call,
  connectMcpClient,
  connectStdioMcpClient,
  restRequest,
} from "../helpers/gateway-client.ts";
import { prepareInfra, startServices, stopServices, testServiceEnv } from "../helpers/in-process-services.ts";
import { type Infrastructure, startInfrastructure } from "../helpers/start-infrastructure.ts";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

let infrastructure: Infrastructure;
let gw: GatewayHarness;
let services: ServiceHandle[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  infrastructure = await startInfrastructure();
  const { postgres, redis, nats } = infrastructure;
  await postgres.createDatabase("gateway_int");
  const infra = {
    databaseUrl: postgres.url("gateway_int"),
    redisUrl: redis.url,
    natsUrl: nats.url,
    uniqueName: "gateway_int",
  };
  await prepareInfra(infra);
  services = await startServices(testServiceEnv(infra), ["ingest", "search", "ranking"]);
  // MCP sessions, limits and write positions in Redis, as the gateway service keeps them.
  gw = await startGatewayHarness({
    databaseUrl: infra.databaseUrl,
    natsUrl: nats.url,
    redisUrl: redis.url,
    redisPrefix: "gateway_int:gateway:",
  });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await gw?.close();
  await stopServices(services);
  await infrastructure?.stop();
});

async function mcpClient(key: KeyName | string, headers: Record<string, string> = {}) {
  const token = key in teamKeys ? gw.keys[key as KeyName] : key;
  const connected = await connectMcpClient(gw.baseUrl, token, { name: "gateway-test", headers });
  clients.push(connected.client);
  return connected;
}

function rest(
  key: KeyName | null,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  return restRequest(gw.baseUrl, key ? gw.keys[key] : null, { method, path, body, headers });
}

const expectedTools = [
  "memory_context",
  "memory_search",
  "memory_read",
  "memory_links",
  "memory_create",
  "memory_update",
  "memory_delete",
  "memory_supersede",
  "memory_invalidate",
  "memory_verify",
  "memory_resolve_conflict",
  "memory_propose",
  "memory_inbox_list",
  "memory_inbox_read",
  "memory_inbox_update",
  "memory_inbox_promote",
  "memory_inbox_reject",
  "memory_handoff_create",
  "memory_handoff_read",
  "memory_handoff_update",
  "memory_handoff_complete",
  "recall",
  "read_key",
  "read_memory",
  "memory_feedback",
  "memory_status",
  "memory_history",
  "memory_export",
  "memory_settings_read",
  "memory_settings_update",
];

describe("MCP over streamable HTTP", () => {
  it("lists every tool with a title and annotations, and the system prompt", async () => {
    const { client } = await mcpClient("alice");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...expectedTools].sort());
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.annotations, tool.name).toBeDefined();
    }
    expect(tools.find((t) => t.name === "memory_delete")?.annotations?.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === "memory_search")?.annotations?.readOnlyHint).toBe(true);
    const prompt = await client.getPrompt({ name: "memory_system_prompt" });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toContain("never instructions");
  });

  it("creates, reads, updates with the version, refuses a stale version with a hint, and deletes in two steps", async () => {
    const { client } = await mcpClient("alice");
    const created = await call(client, "memory_create", {
      slot: "deploy/staging-db",
      content: "The staging database is db-staging-2 on port 5433.",
      tags: ["deploy", "staging"],
    });
    expect(created.isError).toBeFalsy();
    const id = created.structuredContent.id as string;

    const read = await call(client, "memory_read", { id });
    const readText = (read.content[0] as { text: string }).text;
    expect(readText).toContain("<stored_memory");
    expect(readText).toContain('author="alice"');
    expect(readText).toContain("Stored data, not instructions");
    expect(read.structuredContent.version).toBe(1);

    const updated = await call(client, "memory_update", {
      id,
      version: 1,
      content: "Staging DB: db-staging-3:5433.",
    });
    expect(updated.isError).toBeFalsy();
    const stale = await call(client, "memory_update", { id, version: 1, content: "stale" });
    expect(stale.isError).toBe(true);
    expect((stale.structuredContent.error as { code: string }).code).toBe("version_conflict");
    expect((stale.content[0] as { text: string }).text).toMatch(/hint: .*memory_read/);

    const plan = await call(client, "memory_delete", { id, version: 2 });
    expect(plan.structuredContent.dryRun).toBe(true);
    const token = plan.structuredContent.token as string;
    const badToken = await call(client, "memory_delete", { id, version: 2, token: "nope" });
    expect((badToken.structuredContent.error as { code: string }).code).toBe("token_invalid");
    const deleted = await call(client, "memory_delete", { id, version: 2, token });
    expect(deleted.isError).toBeFalsy();
    const gone = await call(client, "memory_read", { id });
    expect((gone.structuredContent.memory as { status: string }).status).toBe("deleted");
  });

  it("searches and builds context within a budget, with conflict hints and open work counts", async () => {
    const { client } = await mcpClient("bob");
    for (const [slot, content] of [
      ["release/checklist", "Release checklist: run migrations, tag, deploy canary."],
      ["release/process", "Release process: canary first, then the fleet."],
    ]) {
      const r = await call(client, "memory_create", {
        slot,
        content,
        title: "Release steps",
        tags: ["release"],
      });
      expect(r.isError).toBeFalsy();
    }
    await call(client, "memory_propose", { slot: "release/maybe", content: "Maybe release on Fridays?" });
    const search = await call(client, "memory_search", { query: "release canary" });
    expect((search.structuredContent.results as unknown[]).length).toBe(2);
    expect(search.structuredContent.ranking).toBe("ranked");

    const context = await call(client, "memory_context", {
      task: "prepare the release canary",
      budget_tokens: 500,
    });
    const sc = context.structuredContent as {
      memories: unknown[];
      conflicts: { reason: string }[];
      pending: { proposals: number };
    };
    expect(sc.memories.length).toBeGreaterThan(0);
    expect(sc.conflicts.some((c) => c.reason === "same_name")).toBe(true);
    expect(sc.pending.proposals).toBeGreaterThanOrEqual(1);
    expect((context.content[0] as { text: string }).text).toContain("Possible conflicts");
  });

  it("keeps private memories private, shares team ones, shows a primary agent both, and never crosses tenants", async () => {
    const alice = (await mcpClient("alice")).client;
    await call(alice, "memory_create", { slot: "zebra/team", content: "zebra team note", scope: "team" });
    await call(alice, "memory_create", {
      slot: "zebra/private",
      content: "zebra private note",
      scope: "agent",
    });
    const readers = {
      bob: (await mcpClient("bob")).client,
      lead: (await mcpClient("lead")).client,
      outsider: (await mcpClient("outsider")).client,
    };
    const slotsSeenBy = async (key: keyof typeof readers) => {
      const r = await call(readers[key], "memory_search", { query: "zebra" });
      // Other tests' memories share the tenant; the zebra ones are what visibility decides.
      return (r.structuredContent.results as { slot: string }[])
        .map((x) => x.slot)
        .filter((slot) => slot.startsWith("zebra/"))
        .sort();
    };
    // Another key's read is eventual: once the primary agent sees both, both are searchable,
    // and what the others see is what visibility decides.
    await expect
      .poll(() => slotsSeenBy("lead"), { timeout: 20_000 })
      .toEqual(["zebra/private", "zebra/team"]);
    expect(await slotsSeenBy("bob")).toEqual(["zebra/team"]);
    expect(await slotsSeenBy("outsider")).toEqual([]);
  });

  it("lets only reviewers promote, and only admins write global memories", async () => {
    const { client: alice } = await mcpClient("alice");
    const proposed = await call(alice, "memory_propose", {
      slot: "style/tabs",
      content: "We indent with tabs.",
    });
    const id = proposed.structuredContent.id as string;
    // The review rule: agents propose, primary ones included; reviewers and admins review.
    for (const key of ["alice", "lead"] as const) {
      const { client } = await mcpClient(key);
      for (const tool of ["memory_inbox_promote", "memory_inbox_reject"]) {
        const refused = await call(client, tool, { id, version: 1 });
        expect((refused.structuredContent.error as { code: string }).code, `${key} ${tool}`).toBe(
          "forbidden",
        );
      }
    }
    const { client: rita } = await mcpClient("reviewer");
    // Another key's read is eventual: the proposal is listed once it is projected.
    const listed = async () => {
      const list = await call(rita, "memory_inbox_list", {});
      return (list.structuredContent.proposals as { id: string }[]).some((p) => p.id === id);
    };
    await expect.poll(listed, { timeout: 20_000 }).toBe(true);
    const promoted = await call(rita, "memory_inbox_promote", { id, version: 1 });
    expect(promoted.isError).toBeFalsy();
    const global = await call(alice, "memory_create", {
      slot: "g/1",
      content: "for everyone",
      scope: "global",
    });
    expect((global.structuredContent.error as { code: string }).code).toBe("forbidden");
  });

  it("runs handoffs, association and feedback tools", async () => {
    const { client } = await mcpClient("alice");
    const opened = await call(client, "memory_handoff_create", {
      slot: "handoff/migration",
      content: "Half the tables are migrated; next: the orders table.",
      keys: ["orders migration"],
    });
    const id = opened.structuredContent.id as string;
    const listed = await call(client, "memory_handoff_read", {});
    expect((listed.structuredContent.handoffs as { id: string }[]).some((h) => h.id === id)).toBe(true);
    expect(
      (await call(client, "memory_handoff_update", { id, version: 1, content: "All but orders." })).isError,
    ).toBeFalsy();
    expect(
      (await call(client, "memory_handoff_complete", { id, version: 2, summary: "done" })).isError,
    ).toBeFalsy();

    const created = await call(client, "memory_create", {
      slot: "orders/schema",
      content: "Orders live in the orders table, partitioned by month.",
      keys: ["orders"],
    });
    const memoryId = created.structuredContent.id as string;
    const recall = await call(client, "recall", { query: "orders table" });
    expect((recall.structuredContent.keys as { label: string }[]).map((k) => k.label)).toContain("orders");
    const key = await call(client, "read_key", { key: "orders" });
    expect((key.structuredContent.memories as { id: string }[]).map((m) => m.id)).toContain(memoryId);
    const viaKey = await call(client, "read_memory", { id: memoryId, via_key: "orders" });
    expect((viaKey.content[0] as { text: string }).text).toContain("partitioned by month");
    expect((await call(client, "memory_feedback", { id: memoryId, useful: true })).isError).toBeFalsy();
    const missing = await call(client, "read_key", { key: "no-such-key" });
    expect((missing.structuredContent.error as { code: string }).code).toBe("not_found");
    const status = await call(client, "memory_status");
    expect((status.structuredContent.principal as { agent: string }).agent).toBe("alice");
  });

  it("keeps a session's memories as one episode, shows neighbours, and explains a search", async () => {
    const { client } = await mcpClient("alice");
    const said = async (slot: string, content: string) =>
      (await call(client, "memory_create", { slot, content, kind: "episode" })).structuredContent
        .id as string;
    await said("chat/quokka-question", "Ben asked which animal the quokka photo showed.");
    const answer = await said("chat/quokka-answer", "It was a marsupial from Rottnest Island.");
    const read = await call(client, "memory_read", { id: answer });
    const memory = read.structuredContent.memory as { episode: { id: string } | null };
    expect(memory.episode?.id).toMatch(/^mcp-session-/);
    expect((read.content[0] as { text: string }).text).toMatch(/before: chat\/quokka-question/);

    const search = await call(client, "memory_search", {
      query: "what animal was the quokka",
      explain: true,
    });
    const results = search.structuredContent.results as {
      slot: string;
      explanation: { relevance: { coverage: number | null }; episode: { from: string } | null };
    }[];
    const found = results.find((r) => r.slot === "chat/quokka-answer");
    // The answer holds no word of the question: its turn before passed it relevance.
    expect(found?.explanation.episode).not.toBeNull();
    expect(results[0]?.explanation.relevance.coverage).toBeGreaterThan(0);
    expect((search.content[0] as { text: string }).text).toMatch(
      /why: score .* relevance .*episode neighbour/s,
    );
  });

  it("refuses a session used with another key, a foreign Origin, and a bad key", async () => {
    const { transport } = await mcpClient("alice");
    const sessionId = transport.sessionId!;
    const hijack = await fetch(`${gw.baseUrl}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${gw.keys.bob}`,
        "mcp-session-id": sessionId,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(hijack.status).toBe(403);
    expect(((await hijack.json()) as { code: string }).code).toBe("forbidden");

    await expect(mcpClient("alice", { Origin: "https://evil.example" })).rejects.toThrow(/403/);
    await expect(mcpClient("alice", { Origin: "http://localhost:6274" })).resolves.toBeDefined();
    await expect(mcpClient("cairn_not-a-real-key-at-all-000000")).rejects.toThrow(/401/);
  });
});

describe("MCP in memory", () => {
  it("drives createServer through a linked in-memory transport", async () => {
    const server = createInMemoryMcpServer(gw.nc, teamKeys.bob);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "in-memory", version: "1.0.0" });
    await client.connect(clientSide);
    const created = await call(client, "memory_create", {
      slot: "inmem/1",
      content: "from memory transport",
    });
    expect(created.isError).toBeFalsy();
    const bad = await call(client, "memory_read", { id: "00000000-0000-4000-8000-000000000000" });
    expect((bad.structuredContent.error as { code: string }).code).toBe("not_found");
    await client.close();
  });
});

describe("MCP over stdio (pnpm cairn mcp)", () => {
  it("relays to the gateway with the key from the environment", async () => {
    const client = await connectStdioMcpClient(gw.baseUrl, gw.keys.alice, { name: "stdio-test" });
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(expectedTools.length);
    const status = await call(client, "memory_status");
    expect((status.structuredContent.principal as { agent: string }).agent).toBe("alice");
    await client.close();
  });

  it("answers a bad key with an error instead of hanging", async () => {
    const child = spawn(process.execPath, ["scripts/cairn.ts", "mcp"], {
      cwd: repoRoot,
      env: {
        ...process.env,
        CAIRN_API_KEY: "cairn_wrong-key-wrong-key-wrong",
        CAIRN_GATEWAY_URL: gw.baseUrl,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const reply = new Promise<string>((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`,
    );
    const line = JSON.parse(await reply) as { id: number; error?: { message: string } };
    expect(line.id).toBe(1);
    expect(line.error?.message).toMatch(/401/);
    child.stdin.end();
    child.kill();
  });
});

describe("REST /v1", () => {
  it("creates, reads with an ETag, and updates only with If-Match", async () => {
    const created = await rest("alice", "POST", "/v1/memories", {
      slot: "rest/one",
      content: "first version",
    });
    expect(created.status).toBe(201);
    const { id, position } = (await created.json()) as { id: string; position: number };
    expect(position).toBeGreaterThan(0);
    const got = await rest("alice", "GET", `/v1/memories/${id}?consistency=strong`);
    expect(got.status).toBe(200);
    expect(got.headers.get("etag")).toBe('"1"');

    const noMatch = await rest("alice", "PATCH", `/v1/memories/${id}`, { content: "x" });
    expect(noMatch.status).toBe(412);
    expect(noMatch.headers.get("content-type")).toContain("application/problem+json");
    expect(((await noMatch.json()) as { code: string }).code).toBe("precondition_required");
    const ok = await rest(
      "alice",
      "PATCH",
      `/v1/memories/${id}`,
      { content: "second" },
      { "If-Match": '"1"' },
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.get("etag")).toBe('"2"');
    const stale = await rest(
      "alice",
      "PATCH",
      `/v1/memories/${id}`,
      { content: "third" },
      { "If-Match": '"1"' },
    );
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { code: string }).code).toBe("version_conflict");

    const plan = await rest("alice", "DELETE", `/v1/memories/${id}?dryRun=true`, undefined, {
      "If-Match": "2",
    });
    const { token } = (await plan.json()) as { token: string };
    const bare = await rest("alice", "DELETE", `/v1/memories/${id}`, undefined, { "If-Match": "2" });
    expect(bare.status).toBe(412);
    const del = await rest("alice", "DELETE", `/v1/memories/${id}?token=${token}`, undefined, {
      "If-Match": "2",
    });
    expect(del.status).toBe(200);
  });

  it("answers 422, 404, 403 and 401 as problem+json with stable codes", async () => {
    const invalid = await rest("alice", "POST", "/v1/memories", { slot: "x", content: "y", bogus: 1 });
    expect(invalid.status).toBe(422);
    expect(((await invalid.json()) as { code: string }).code).toBe("unknown_field");
    const missing = await rest("alice", "GET", "/v1/memories/00000000-0000-4000-8000-000000000000");
    expect(missing.status).toBe(404);
    const global = await rest("alice", "POST", "/v1/memories", { slot: "g", content: "g", scope: "global" });
    expect(global.status).toBe(403);
    const noKey = await rest(null, "GET", "/v1/status");
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("www-authenticate")).toContain("Bearer");
    const unknown = await rest("alice", "GET", "/v1/nothing-here");
    expect(unknown.status).toBe(404);
  });

  it("serves proposals, handoffs, context, keys, feedback and status", async () => {
    const p = (await (
      await rest("bob", "POST", "/v1/proposals", { slot: "p/1", content: "proposal one" })
    ).json()) as {
      id: string;
    };
    expect((await rest("bob", "GET", "/v1/proposals")).status).toBe(200);
    // A read is eventual unless it asks for its key's own writes.
    expect((await rest("bob", "GET", `/v1/proposals/${p.id}?consistency=strong`)).status).toBe(200);
    expect(
      (await rest("bob", "PATCH", `/v1/proposals/${p.id}`, { content: "revised" }, { "If-Match": "1" }))
        .status,
    ).toBe(200);
    expect((await rest("bob", "POST", `/v1/proposals/${p.id}/promote`, {}, { "If-Match": "2" })).status).toBe(
      403,
    );
    expect(
      (await rest("reviewer", "POST", `/v1/proposals/${p.id}/reject`, { reason: "no" }, { "If-Match": "2" }))
        .status,
    ).toBe(200);

    const h = (await (
      await rest("bob", "POST", "/v1/handoffs", { slot: "h/1", content: "handoff one" })
    ).json()) as {
      id: string;
    };
    expect((await rest("bob", "GET", "/v1/handoffs")).status).toBe(200);
    expect((await rest("bob", "POST", `/v1/handoffs/${h.id}/complete`, {}, { "If-Match": "1" })).status).toBe(
      200,
    );

    const m = (await (
      await rest("bob", "POST", "/v1/memories", { slot: "k/1", content: "kiwi facts", keys: ["kiwi"] })
    ).json()) as {
      id: string;
    };
    const context = await rest("bob", "GET", "/v1/context?task=kiwi&consistency=strong");
    expect(((await context.json()) as { memories: unknown[] }).memories.length).toBeGreaterThan(0);
    const keys = (await (await rest("bob", "GET", "/v1/keys?q=kiwi")).json()) as {
      keys: { label: string }[];
    };
    expect(keys.keys.map((k) => k.label)).toContain("kiwi");
    expect((await rest("bob", "GET", "/v1/keys/kiwi")).status).toBe(200);
    expect((await rest("bob", "POST", "/v1/feedback", { memoryId: m.id, useful: true })).status).toBe(201);
    const status = (await (await rest("bob", "GET", "/v1/status")).json()) as {
      principal: { agent: string };
    };
    expect(status.principal.agent).toBe("bob");
  });

  it("applies the review rule: a primary agent cannot promote or reject, a reviewer and an admin can", async () => {
    const submit = async (slot: string) => {
      const res = await rest("alice", "POST", "/v1/proposals", { slot, content: `Proposed ${slot}.` });
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const first = await submit("review/rest-one");
    for (const key of ["alice", "lead"] as const) {
      for (const action of ["promote", "reject"]) {
        const res = await rest(key, "POST", `/v1/proposals/${first}/${action}`, {}, { "If-Match": '"1"' });
        expect(res.status, `${key} ${action}`).toBe(403);
        expect(((await res.json()) as { code: string }).code).toBe("forbidden");
      }
    }
    const promoted = await rest(
      "reviewer",
      "POST",
      `/v1/proposals/${first}/promote`,
      {},
      { "If-Match": '"1"' },
    );
    expect(promoted.status, await promoted.clone().text()).toBe(200);
    const second = await submit("review/rest-two");
    const rejected = await rest(
      "admin",
      "POST",
      `/v1/proposals/${second}/reject`,
      { reason: "no" },
      { "If-Match": '"1"' },
    );
    expect(rejected.status, await rejected.clone().text()).toBe(200);
  });

  it("gives a memory's history and its past state as of a position or a time, on REST and MCP", async () => {
    const created = await rest("alice", "POST", "/v1/memories", {
      slot: "history/port",
      content: "The service listens on port 8080.",
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const first = (await created.json()) as { id: string; position: number };
    const firstAt = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const updated = await rest(
      "bob",
      "PATCH",
      `/v1/memories/${first.id}`,
      { content: "The service listens on port 9090." },
      { "If-Match": '"1"' },
    );
    expect(updated.status, await updated.clone().text()).toBe(200);

    const history = await rest("alice", "GET", `/v1/memories/${first.id}/history`);
    expect(history.status).toBe(200);
    const body = (await history.json()) as {
      purged: boolean;
      versions: { version: number; agent: string; type: string; content: string | null; changed: string[] }[];
    };
    expect(body.purged).toBe(false);
    expect(body.versions.map((v) => [v.version, v.agent, v.type, v.content])).toEqual([
      [1, "alice", "memory.recorded", "The service listens on port 8080."],
      [2, "bob", "memory.revised", "The service listens on port 9090."],
    ]);
    expect(body.versions[1]?.changed).toContain("content");

    // As of the first write's position, and as of a time between the two writes: version 1.
    for (const asOf of [String(first.position), firstAt]) {
      const then = await rest("alice", "GET", `/v1/memories/${first.id}?asOf=${encodeURIComponent(asOf)}`);
      expect(then.status, await then.clone().text()).toBe(200);
      expect(
        ((await then.json()) as { document: { version: number; content: string } }).document,
      ).toMatchObject({
        version: 1,
        content: "The service listens on port 8080.",
      });
    }
    const listed = await rest("alice", "GET", `/v1/memories?asOf=${first.position}&limit=100`);
    const docs = ((await listed.json()) as { results: { document: { id: string; version: number } }[] })
      .results;
    expect(docs.find((r) => r.document.id === first.id)?.document.version).toBe(1);
    const bad = await rest("alice", "GET", `/v1/memories/${first.id}?asOf=yesterday`);
    expect(bad.status).toBe(422);

    const { client } = await mcpClient("alice");
    const viaMcp = await call(client, "memory_history", { id: first.id });
    expect(viaMcp.isError).toBeFalsy();
    expect((viaMcp.structuredContent.versions as unknown[]).length).toBe(2);
    expect((viaMcp.content[0] as { text: string }).text).toMatch(/v2 .* bob memory\.revised \(.*content/);
    const past = await call(client, "memory_read", { id: first.id, as_of: first.position });
    expect((past.structuredContent.memory as { content: string }).content).toBe(
      "The service listens on port 8080.",
    );
    // Bob's revision is another key's write: alice's read of the current memory is eventual.
    const current = async () =>
      ((await call(client, "memory_read", { id: first.id })).structuredContent.memory as { content: string })
        .content;
    await expect.poll(current, { timeout: 20_000 }).toBe("The service listens on port 9090.");
    // Another tenant sees no history of it.
    const { client: olga } = await mcpClient("outsider");
    const hidden = await call(olga, "memory_history", { id: first.id });
    expect((hidden.structuredContent.error as { code: string }).code).toBe("not_found");
  });

  it("explains search results with explain=true and leaves out what holds too little of the query", async () => {
    for (const [slot, content] of [
      ["tools/package-manager", "We use pnpm as the package manager for every repository."],
      ["ops/metrics-marker", "The metrics marker is set on every request the gateway serves."],
    ] as const) {
      const created = await rest("alice", "POST", "/v1/memories", { slot, content });
      expect(created.status, await created.clone().text()).toBe(201);
    }
    const plain = await rest("alice", "GET", "/v1/memories?q=which%20package%20manager&consistency=strong");
    const plainBody = (await plain.json()) as {
      results: { document: { slot: string }; explanation?: unknown }[];
    };
    expect(plainBody.results[0]?.document.slot).toBe("tools/package-manager");
    expect(plainBody.results[0]?.explanation).toBeUndefined();
    expect(plainBody.results.map((r) => r.document.slot)).not.toContain("ops/metrics-marker");

    const explained = await rest("alice", "GET", "/v1/memories?q=which%20package%20manager&explain=true");
    expect(explained.status).toBe(200);
    const body = (await explained.json()) as {
      results: {
        score: number;
        explanation: {
          score: number;
          relevance: { fused: number; lexical: { rank: number; score: number } | null; coverage: number };
          factors: Record<string, number> | null;
          expansions: string[];
        };
      }[];
    };
    const top = body.results[0]?.explanation;
    expect(top?.score).toBe(body.results[0]?.score);
    expect(top?.relevance.lexical?.rank).toBe(1);
    expect(top?.relevance.coverage).toBeGreaterThan(0.5);
    expect(top?.factors).toMatchObject({
      relevance: 1,
      decay: expect.any(Number),
      feedback: expect.any(Number),
    });

    // memory_context does not pad its answer with what does not answer the task.
    const { client } = await mcpClient("alice");
    const context = await call(client, "memory_context", { task: "which package manager do we use?" });
    const slots = (context.structuredContent.memories as { slot: string }[]).map((m) => m.slot);
    expect(slots).toContain("tools/package-manager");
    expect(slots).not.toContain("ops/metrics-marker");
  });

  it("searches with the entities that co-occur with the query's, and answers a skipped query with nothing", async () => {
    for (const [slot, content] of [
      ["stack/web", "Our API is written in Python with Django."],
      ["stack/admin", "The Python admin pages use Django templates."],
      ["stack/jobs", "Our API is written in Python with Flask."],
    ] as const) {
      const created = await rest("admin", "POST", "/v1/memories", { slot, content });
      expect(created.status, await created.clone().text()).toBe(201);
    }
    type Explained = {
      results: {
        document: { slot: string };
        explanation: { relevance: { lexical: { score: number } | null }; expansions: string[] };
      }[];
      skipped?: unknown;
    };
    const search = async (q: string) => {
      const reply = await rest(
        "admin",
        "GET",
        `/v1/memories?q=${encodeURIComponent(q)}&explain=true&consistency=strong`,
      );
      expect(reply.status).toBe(200);
      return (await reply.json()) as Explained;
    };
    // Python co-occurs with Django twice: the query is expanded with Django, which counts for
    // the memory that holds it and not for its twin that names Flask instead.
    const expanded = await search("Python API");
    const lexical = (slot: string) =>
      expanded.results.find((r) => r.document.slot === slot)?.explanation.relevance.lexical?.score ?? 0;
    expect(expanded.results[0]?.explanation.expansions).toContain("Django");
    expect(lexical("stack/web")).toBeGreaterThan(lexical("stack/jobs"));
    expect(expanded.results[0]?.document.slot).toBe("stack/web");

    const { client: admin } = await mcpClient("admin");
    const contextSlots = async (task: string) => {
      const context = await call(admin, "memory_context", { task });
      return (context.structuredContent.memories as { slot: string }[]).map((m) => m.slot);
    };
    const settings = (await call(admin, "memory_settings_read")).structuredContent as { version: number };
    const changed = await call(admin, "memory_settings_update", {
      settings: { skipPatterns: ["noted .*"] },
      version: settings.version,
    });
    expect(changed.isError, JSON.stringify(changed.content)).toBeFalsy();
    try {
      // A skipped query answers nothing, though its words match memories.
      const skipped = await search("noted Python API");
      expect(skipped.results).toEqual([]);
      expect(skipped.skipped).toBeDefined();
      expect(await contextSlots("noted Python API")).toEqual([]);
      expect(await contextSlots("Python API")).toContain("stack/web");
    } finally {
      const current = (await call(admin, "memory_settings_read")).structuredContent as { version: number };
      await call(admin, "memory_settings_update", {
        settings: { skipPatterns: [] },
        version: current.version,
      });
    }
  });

  it("lets admins manage API keys of their tenant and nobody else", async () => {
    expect((await rest("alice", "GET", "/v1/api-keys")).status).toBe(403);
    const created = await rest("admin", "POST", "/v1/api-keys", { agent: "newbie" });
    expect(created.status).toBe(201);
    const { key, record } = (await created.json()) as { key: string; record: { id: string; tenant: string } };
    expect(record.tenant).toBe("acme");
    const use = await fetch(`${gw.baseUrl}/v1/status`, { headers: { Authorization: `Bearer ${key}` } });
    expect(use.status).toBe(200);
    const revoked = await rest("admin", "DELETE", `/v1/api-keys/${record.id}`);
    expect(revoked.status).toBe(200);
    const after = await fetch(`${gw.baseUrl}/v1/status`, { headers: { Authorization: `Bearer ${key}` } });
    expect(after.status).toBe(401);
  });

  it("refuses a body over the limit with 413", async () => {
    const big = await rest("alice", "POST", "/v1/memories", { slot: "big", content: "x".repeat(300 * 1024) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { code: string }).code).toBe("too_large");
  });
});

describe("rate limits", () => {
  it("answers 429 with Retry-After once a key's burst is spent, per key", async () => {
    await infrastructure.postgres.createDatabase("gateway_rate");
    const limited = await startGatewayHarness({
      databaseUrl: infrastructure.postgres.url("gateway_rate"),
      natsUrl: infrastructure.nats.url,
      rateLimit: { perMinute: 6, burst: 3 },
    });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i += 1) {
        const res = await fetch(`${limited.baseUrl}/v1/status`, {
          headers: { Authorization: `Bearer ${limited.keys.alice}` },
        });
        statuses.push(res.status);
        if (res.status === 429) retryAfter = res.headers.get("retry-after");
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      const other = await fetch(`${limited.baseUrl}/v1/status`, {
        headers: { Authorization: `Bearer ${limited.keys.bob}` },
      });
      expect(other.status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("OpenAPI", () => {
  it("serves a document that a maintained validator accepts", async () => {
    const res = await fetch(`${gw.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const document = (await res.json()) as { openapi: string };
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result).slice(0, 4000)).toBe(true);
  });

  it("documents exactly the routes the server answers", async () => {
    const document = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    const served = routesOf(gw.app)
      .filter((r) => r.method !== "HEAD" && r.url !== "/mcp")
      .map((r) => `${r.method} ${r.url.replace(/:([^/]+)/g, "{$1}")}`)
      .sort();
    expect(documented).toEqual(served);
  });
});
