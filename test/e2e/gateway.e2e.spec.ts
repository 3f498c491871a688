// The gateway end to end: all five services as processes (as `pnpm start` runs them), keys
// made with `pnpm cairn keys`, and real clients: the MCP SDK's Client over streamable HTTP and
// over stdio (`pnpm cairn mcp`), and fetch for REST. Suites that need ingest and search skip
// themselves while those services do not answer their subjects yet.

import { waitFor } from "@cairn/testing";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callTool as call,
  connectMcpClient,
  connectStdioMcpClient,
  restRequest,
  type ToolResult,
} from "../helpers/gateway-client.ts";
import { adminKey, type CairnDeployment, startCairn } from "./gateway-harness.ts";

let cairn: CairnDeployment;
const keys: Record<string, string> = {};
const clients: Client[] = [];

const team = {
  alice: { tenant: "acme", agent: "alice" },
  bob: { tenant: "acme", agent: "bob" },
  lead: { tenant: "acme", agent: "lead", primary: true },
  rita: { tenant: "acme", agent: "rita", role: "reviewer" as const },
  olga: { tenant: "globex", agent: "olga", primary: true },
  hammer: { tenant: "acme", agent: "hammer" },
};

beforeAll(async () => {
  cairn = await startCairn({ CAIRN_RATE_LIMIT_BURST: "200", CAIRN_RATE_LIMIT_PER_MINUTE: "60" });
  for (const [name, p] of Object.entries(team)) keys[name] = (await cairn.createKey(p)).key;
}, 180_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await cairn?.stop();
});

async function mcp(name: string, headers: Record<string, string> = {}) {
  const { client } = await connectMcpClient(cairn.baseUrl, keys[name] ?? name, {
    name: `e2e-${name}`,
    headers,
  });
  clients.push(client);
  return client;
}

const ok = (r: ToolResult) => {
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent;
};
const refused = (r: ToolResult, code: string) => {
  expect(r.isError, JSON.stringify(r.content)).toBe(true);
  expect((r.structuredContent.error as { code: string }).code).toBe(code);
  expect((r.content[0] as { text: string }).text).toContain("hint:");
};

function rest(
  name: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  return restRequest(cairn.baseUrl, name ? (keys[name] ?? name) : null, { method, path, body, headers });
}
async function json<T = Record<string, unknown>>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

describe("gateway surface", () => {
  it("created the admin key from CAIRN_ADMIN_KEY on first start", async () => {
    const res = await rest(adminKey, "GET", "/v1/api-keys");
    const body = await json<{ keys: { agent: string; role: string }[] }>(res, 200);
    expect(body.keys.some((k) => k.agent === "admin" && k.role === "admin")).toBe(true);
  });

  it("manages keys with pnpm cairn keys: list shows prefixes only, revoke stops a key at once", async () => {
    const temp = await cairn.createKey({ tenant: "acme", agent: "temp" });
    expect((await rest(temp.key, "GET", "/v1/status")).status).toBe(200);
    const listed = await cairn.cli(["keys", "list", "--tenant", "acme"]);
    expect(listed.stdout).toContain("acme/temp");
    expect(listed.stdout).not.toContain(temp.key);
    await cairn.cli(["keys", "revoke", temp.id]);
    expect((await rest(temp.key, "GET", "/v1/status")).status).toBe(401);
  });

  it("refuses a bad key on REST and MCP, and a foreign Origin on MCP", async () => {
    const bad = await rest("cairn_this-key-does-not-exist-000000", "GET", "/v1/status");
    expect(bad.status).toBe(401);
    expect(bad.headers.get("content-type")).toContain("application/problem+json");
    await expect(mcp("cairn_this-key-does-not-exist-000000")).rejects.toThrow(/401/);
    await expect(mcp("alice", { Origin: "https://attacker.example" })).rejects.toThrow(/403/);
    await expect(mcp("alice", { Origin: "http://127.0.0.1:6274" })).resolves.toBeDefined();
  });

  it("lists the tools over streamable HTTP and over stdio (pnpm cairn mcp)", async () => {
    const http = await mcp("alice");
    const overHttp = (await http.listTools()).tools.map((t) => t.name).sort();
    expect(overHttp).toHaveLength(30);
    expect(overHttp).toEqual(
      expect.arrayContaining(["memory_export", "memory_settings_read", "memory_settings_update"]),
    );
    const stdio = await connectStdioMcpClient(cairn.baseUrl, keys.alice!, { name: "e2e-stdio" });
    clients.push(stdio);
    expect((await stdio.listTools()).tools.map((t) => t.name).sort()).toEqual(overHttp);
  });

  it("rate-limits per key with 429 and Retry-After", async () => {
    const statuses = new Map<number, number>();
    let retryAfter: string | null = null;
    for (let i = 0; i < 210; i += 1) {
      const res = await rest("hammer", "GET", "/v1/no-such-route");
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 429) retryAfter = res.headers.get("retry-after");
    }
    expect(statuses.get(429)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await rest("bob", "GET", "/v1/no-such-route")).status).toBe(404);
  });

  it("serves an OpenAPI 3.1 document that lists the /v1 routes", async () => {
    const { validate, compileErrors } = await import("@readme/openapi-parser");
    const document = await json<{ openapi: string; paths: Record<string, unknown> }>(
      await fetch(`${cairn.baseUrl}/openapi.json`),
      200,
    );
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    for (const path of [
      "/v1/memories",
      "/v1/memories/{id}",
      "/v1/context",
      "/v1/proposals",
      "/v1/handoffs",
    ]) {
      expect(Object.keys(document.paths)).toContain(path);
    }
    for (const path of ["/v1/keys", "/v1/feedback", "/v1/status"])
      expect(Object.keys(document.paths)).toContain(path);
  });
});

describe("MCP tools through the real services", () => {
  it("every tool succeeds and refuses", async () => {
    const alice = await mcp("alice");
    const rita = await mcp("rita");
    const missing = "00000000-0000-4000-8000-000000000000";

    const created = ok(
      await call(alice, "memory_create", {
        slot: "e2e/deploy-target",
        kind: "fact",
        title: "Deploy target",
        content: "Production deploys go to the eu-west cluster through the release pipeline.",
        tags: ["deploy", "production"],
        keys: ["deploy pipeline"],
      }),
    );
    const id = created.id as string;
    refused(
      await call(alice, "memory_create", { slot: "e2e/deploy-target", content: "again" }),
      "slot_taken",
    );

    const read = ok(await call(alice, "memory_read", { id }));
    expect(read.version).toBe(1);
    refused(await call(alice, "memory_read", { id: missing }), "not_found");

    const found = ok(await call(alice, "memory_search", { query: "eu-west cluster deploys" }));
    expect((found.results as { id: string }[]).map((r) => r.id)).toContain(id);
    refused(await call(alice, "memory_search", { query: "x", limit: 0 } as never), "validation_failed");

    const context = ok(
      await call(alice, "memory_context", { task: "deploy to production", budget_tokens: 800 }),
    );
    expect((context.memories as { id: string }[]).map((m) => m.id)).toContain(id);
    refused(await call(alice, "memory_context", { task: "" }), "validation_failed");

    ok(await call(alice, "memory_links", { id }));
    refused(await call(alice, "memory_links", { id: missing }), "not_found");

    const updated = ok(
      await call(alice, "memory_update", { id, version: 1, content: "Production deploys go to eu-west-2." }),
    );
    refused(await call(alice, "memory_update", { id, version: 1, content: "stale" }), "version_conflict");

    ok(await call(alice, "memory_verify", { id, version: updated.version }));
    refused(await call(alice, "memory_verify", { id, version: 1 }), "version_conflict");

    const other = ok(
      await call(alice, "memory_create", { slot: "e2e/deploy-old", content: "Deploys go to us-east." }),
    );
    const resolvePlan = ok(
      await call(alice, "memory_resolve_conflict", { keep_id: id, other_id: other.id, action: "archive" }),
    );
    expect(resolvePlan.dryRun).toBe(true);
    refused(
      await call(alice, "memory_resolve_conflict", {
        keep_id: id,
        other_id: other.id,
        action: "archive",
        token: "bogus",
      }),
      "token_invalid",
    );
    ok(
      await call(alice, "memory_resolve_conflict", {
        keep_id: id,
        other_id: other.id,
        action: "archive",
        token: resolvePlan.token,
      }),
    );

    const current = ok(await call(alice, "memory_read", { id }));
    const supersedePlan = ok(
      await call(alice, "memory_supersede", {
        id,
        version: current.version,
        content: "Deploys go to eu-central.",
      }),
    );
    refused(await call(alice, "memory_supersede", { id, version: 1, content: "stale" }), "version_conflict");
    const replacement = ok(
      await call(alice, "memory_supersede", {
        id,
        version: current.version,
        content: "Deploys go to eu-central.",
        token: supersedePlan.token,
      }),
    );

    const fresh = ok(await call(alice, "memory_read", { id: replacement.id }));
    ok(
      await call(alice, "memory_invalidate", { id: replacement.id, version: fresh.version, reason: "moved" }),
    );
    refused(await call(alice, "memory_invalidate", { id: missing, version: 1 }), "not_found");

    const doomed = ok(
      await call(alice, "memory_create", { slot: "e2e/doomed", content: "Temporary note to delete." }),
    );
    const deletePlan = ok(await call(alice, "memory_delete", { id: doomed.id, version: 1 }));
    refused(
      await call(alice, "memory_delete", { id: doomed.id, version: 1, token: "bogus" }),
      "token_invalid",
    );
    ok(await call(alice, "memory_delete", { id: doomed.id, version: 1, token: deletePlan.token }));

    const proposal = ok(
      await call(alice, "memory_propose", { slot: "e2e/maybe", content: "We might move CI to Fridays." }),
    );
    refused(await call(alice, "memory_propose", { slot: "", content: "x" }), "validation_failed");
    await waitFor(async () => {
      const inbox = ok(await call(rita, "memory_inbox_list", { query: "CI Fridays" }));
      expect((inbox.proposals as { id: string }[]).map((p) => p.id)).toContain(proposal.id);
    });
    // Without a query the inbox lists every pending proposal, and the counts see it.
    const inbox = ok(await call(rita, "memory_inbox_list", {}));
    expect((inbox.proposals as { id: string }[]).map((p) => p.id)).toContain(proposal.id);
    const withInbox = ok(await call(alice, "memory_status"));
    expect((withInbox.pending as { proposals: number }).proposals).toBeGreaterThanOrEqual(1);
    refused(await call(rita, "memory_inbox_list", { limit: 0 } as never), "validation_failed");
    ok(await call(rita, "memory_inbox_read", { id: proposal.id }));
    refused(await call(rita, "memory_inbox_read", { id: missing }), "not_found");
    const revised = ok(
      await call(alice, "memory_inbox_update", {
        id: proposal.id,
        version: 1,
        content: "CI moves to Fridays.",
      }),
    );
    refused(
      await call(alice, "memory_inbox_update", { id: proposal.id, version: 1, content: "stale" }),
      "version_conflict",
    );
    refused(
      await call(alice, "memory_inbox_promote", { id: proposal.id, version: revised.version }),
      "forbidden",
    );
    ok(await call(rita, "memory_inbox_promote", { id: proposal.id, version: revised.version }));
    const second = ok(
      await call(alice, "memory_propose", { slot: "e2e/nope", content: "Tabs over spaces everywhere." }),
    );
    refused(await call(alice, "memory_inbox_reject", { id: second.id, version: 1 }), "forbidden");
    ok(await call(rita, "memory_inbox_reject", { id: second.id, version: 1, reason: "we use spaces" }));

    const handoff = ok(
      await call(alice, "memory_handoff_create", {
        slot: "e2e/handoff",
        content: "Migrating orders; next: invoices.",
      }),
    );
    refused(
      await call(alice, "memory_handoff_create", { slot: "e2e/handoff2" } as never),
      "validation_failed",
    );
    const handoffs = ok(await call(alice, "memory_handoff_read", { query: "migrating orders invoices" }));
    expect((handoffs.handoffs as { id: string }[]).map((h) => h.id)).toContain(handoff.id);
    const open = ok(await call(alice, "memory_handoff_read", {}));
    expect((open.handoffs as { id: string }[]).map((h) => h.id)).toContain(handoff.id);
    const inFlight = ok(await call(alice, "memory_context", { task: "what is in flight" }));
    expect((inFlight.pending as { handoffs: number }).handoffs).toBeGreaterThanOrEqual(1);
    refused(await call(alice, "memory_handoff_read", { id: missing }), "not_found");
    const step = ok(
      await call(alice, "memory_handoff_update", { id: handoff.id, version: 1, content: "Invoices done." }),
    );
    refused(
      await call(alice, "memory_handoff_update", { id: handoff.id, version: 1, content: "stale" }),
      "version_conflict",
    );
    ok(
      await call(alice, "memory_handoff_complete", {
        id: handoff.id,
        version: step.version,
        summary: "all migrated",
      }),
    );
    refused(await call(alice, "memory_handoff_complete", { id: handoff.id, version: 1 }), "version_conflict");

    const keyed = ok(
      await call(alice, "memory_create", {
        slot: "e2e/kafka",
        content: "Kafka topics are created by the platform team only.",
        keys: ["kafka topics"],
      }),
    );
    const recalled = ok(await call(alice, "recall", { query: "kafka topics" }));
    const key = (recalled.keys as { id: string | null; label: string }[]).find((k) => /kafka/i.test(k.label));
    expect(key).toBeDefined();
    refused(await call(alice, "recall", { query: "" }), "validation_failed");
    const viaKey = ok(await call(alice, "read_key", { key: key!.id ?? key!.label }));
    expect((viaKey.memories as { id: string }[]).map((m) => m.id)).toContain(keyed.id);
    refused(await call(alice, "read_key", { key: "no such key at all zzz" }), "not_found");
    ok(await call(alice, "read_memory", { id: keyed.id, via_key: key!.id ?? key!.label }));
    refused(await call(alice, "read_memory", { id: missing }), "not_found");

    ok(await call(alice, "memory_feedback", { id: keyed.id, useful: true }));
    refused(await call(alice, "memory_feedback", { id: missing, useful: true }), "not_found");

    const status = ok(await call(alice, "memory_status"));
    expect((status.principal as { agent: string }).agent).toBe("alice");
    const olga = await mcp("olga");
    refused(await call(olga, "memory_read", { id: keyed.id }), "not_found");
  });

  it("shares team memories within a tenant, keeps private ones private, shows a primary agent both, never crosses tenants", async () => {
    const alice = await mcp("alice");
    ok(
      await call(alice, "memory_create", {
        slot: "e2e/walrus-team",
        content: "The walrus migration is shared.",
        scope: "team",
      }),
    );
    ok(
      await call(alice, "memory_create", {
        slot: "e2e/walrus-mine",
        content: "The walrus migration notes are mine.",
        scope: "agent",
      }),
    );
    // Other agents read without alice's write position: wait for the projections. Vector
    // retrieval may add unrelated memories, so only the walrus slots are compared.
    const slots = async (name: string) => {
      const r = ok(await call(await mcp(name), "memory_search", { query: "walrus migration" }));
      return (r.results as { slot: string }[])
        .map((x) => x.slot)
        .filter((slot) => slot.startsWith("e2e/walrus"))
        .sort();
    };
    await waitFor(async () => expect(await slots("lead")).toEqual(["e2e/walrus-mine", "e2e/walrus-team"]));
    expect(await slots("bob")).toEqual(["e2e/walrus-team"]);
    expect(await slots("olga")).toEqual([]);
  });

  it("works over stdio too: create, then search", async () => {
    const client = await connectStdioMcpClient(cairn.baseUrl, keys.bob!, { name: "e2e-stdio-bob" });
    clients.push(client);
    const created = ok(
      await call(client, "memory_create", { slot: "e2e/stdio", content: "Written over stdio by bob." }),
    );
    const found = ok(await call(client, "memory_search", { query: "written over stdio" }));
    expect((found.results as { id: string }[]).map((r) => r.id)).toContain(created.id);
    refused(
      await call(client, "memory_update", { id: created.id, version: 9, content: "x" }),
      "version_conflict",
    );
  });
});

describe("REST through the real services", () => {
  it("every route succeeds and refuses", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    const m = await json<{ id: string; position: number }>(
      await rest("bob", "POST", "/v1/memories", {
        slot: "rest/cache",
        content: "The cache TTL is 300 seconds.",
        keys: ["cache ttl"],
      }),
      201,
    );
    expect(
      (await rest("bob", "POST", "/v1/memories", { slot: "rest/x", content: "y", extra: 1 })).status,
    ).toBe(422);
    expect(
      (await rest("bob", "POST", "/v1/memories", { slot: "rest/g", content: "g", scope: "global" })).status,
    ).toBe(403);

    const got = await rest("bob", "GET", `/v1/memories/${m.id}?afterPosition=${m.position}`);
    expect(got.status).toBe(200);
    expect(got.headers.get("etag")).toBe('"1"');
    expect((await rest("bob", "GET", `/v1/memories/${missing}`)).status).toBe(404);

    const search = await json<{ results: { document: { id: string } }[] }>(
      await rest("bob", "GET", "/v1/memories?q=cache%20TTL&consistency=strong"),
      200,
    );
    expect(search.results.map((r) => r.document.id)).toContain(m.id);
    expect((await rest("bob", "GET", "/v1/memories?limit=0")).status).toBe(422);

    expect((await rest("bob", "GET", `/v1/memories/${m.id}/links`)).status).toBe(200);
    expect((await rest("bob", "GET", `/v1/memories/${missing}/links`)).status).toBe(404);

    expect((await rest("bob", "PATCH", `/v1/memories/${m.id}`, { content: "TTL 600 s." })).status).toBe(412);
    const patched = await json<{ version: number }>(
      await rest(
        "bob",
        "PATCH",
        `/v1/memories/${m.id}`,
        { content: "The cache TTL is 600 seconds." },
        { "If-Match": '"1"' },
      ),
      200,
    );
    expect(
      (await rest("bob", "PATCH", `/v1/memories/${m.id}`, { content: "stale" }, { "If-Match": '"1"' }))
        .status,
    ).toBe(409);

    let v = patched.version;
    for (const action of ["verify", "archive", "restore"]) {
      const r = await json<{ version: number }>(
        await rest("bob", "POST", `/v1/memories/${m.id}/${action}`, {}, { "If-Match": `"${v}"` }),
        200,
      );
      v = r.version;
      expect((await rest("bob", "POST", `/v1/memories/${m.id}/${action}`, {})).status).toBe(412);
    }
    const inv = await json<{ version: number }>(
      await rest(
        "bob",
        "POST",
        `/v1/memories/${m.id}/invalidate`,
        { reason: "changed" },
        { "If-Match": `"${v}"` },
      ),
      200,
    );
    v = inv.version;
    expect(
      (await rest("bob", "POST", `/v1/memories/${m.id}/invalidate`, {}, { "If-Match": '"1"' })).status,
    ).toBe(409);

    const sup = await json<{ token: string }>(
      await rest(
        "bob",
        "POST",
        `/v1/memories/${m.id}/supersede`,
        { replacement: { content: "TTL is 900 s." }, dryRun: true },
        { "If-Match": `"${v}"` },
      ),
      200,
    );
    expect(
      (
        await rest(
          "bob",
          "POST",
          `/v1/memories/${m.id}/supersede`,
          { replacement: { content: "x" } },
          { "If-Match": `"${v}"` },
        )
      ).status,
    ).toBe(412);
    const replaced = await json<{ id: string }>(
      await rest(
        "bob",
        "POST",
        `/v1/memories/${m.id}/supersede`,
        { replacement: { content: "TTL is 900 s." }, token: sup.token },
        { "If-Match": `"${v}"` },
      ),
      200,
    );

    const a = await json<{ id: string }>(
      await rest("bob", "POST", "/v1/memories", { slot: "rest/a", content: "Alpha A." }),
      201,
    );
    const b = await json<{ id: string }>(
      await rest("bob", "POST", "/v1/memories", { slot: "rest/b", content: "Beta B." }),
      201,
    );
    const rc = await json<{ token: string }>(
      await rest("bob", "POST", "/v1/memories/resolve-conflict", {
        keepId: a.id,
        otherId: b.id,
        action: "archive",
        dryRun: true,
      }),
      200,
    );
    expect(
      (
        await rest("bob", "POST", "/v1/memories/resolve-conflict", {
          keepId: a.id,
          otherId: b.id,
          action: "archive",
          token: "bogus",
        })
      ).status,
    ).toBe(409);
    await json(
      await rest("bob", "POST", "/v1/memories/resolve-conflict", {
        keepId: a.id,
        otherId: b.id,
        action: "archive",
        token: rc.token,
      }),
      200,
    );

    const del = await json<{ token: string }>(
      await rest("bob", "DELETE", `/v1/memories/${a.id}?dryRun=true`, undefined, { "If-Match": '"1"' }),
      200,
    );
    expect((await rest("bob", "DELETE", `/v1/memories/${a.id}`)).status).toBe(412);
    await json(
      await rest("bob", "DELETE", `/v1/memories/${a.id}?token=${encodeURIComponent(del.token)}`, undefined, {
        "If-Match": '"1"',
      }),
      200,
    );

    const ctxRes = await json<{ memories: unknown[] }>(
      await rest("bob", "GET", "/v1/context?task=cache%20TTL&consistency=strong"),
      200,
    );
    expect(Array.isArray(ctxRes.memories)).toBe(true);
    expect((await rest("bob", "GET", "/v1/context")).status).toBe(422);

    const p = await json<{ id: string; position: number }>(
      await rest("bob", "POST", "/v1/proposals", { slot: "rest/p", content: "Maybe use Redis 8." }),
      201,
    );
    expect((await rest("bob", "POST", "/v1/proposals", { content: "no slot" })).status).toBe(422);
    const inbox = await json<{ items: { id: string }[] }>(
      await rest("rita", "GET", `/v1/proposals?q=Redis&afterPosition=${p.position}`),
      200,
    );
    expect(inbox.items.map((i) => i.id)).toContain(p.id);
    expect((await rest("rita", "GET", "/v1/proposals?limit=0")).status).toBe(422);
    expect((await rest("rita", "GET", `/v1/proposals/${p.id}`)).status).toBe(200);
    expect((await rest("rita", "GET", `/v1/proposals/${missing}`)).status).toBe(404);
    await json(
      await rest("bob", "PATCH", `/v1/proposals/${p.id}`, { content: "Use Redis 8." }, { "If-Match": '"1"' }),
      200,
    );
    expect((await rest("bob", "PATCH", `/v1/proposals/${p.id}`, { content: "x" })).status).toBe(412);
    expect(
      (await rest("bob", "POST", `/v1/proposals/${p.id}/promote`, {}, { "If-Match": '"2"' })).status,
    ).toBe(403);
    await json(await rest("rita", "POST", `/v1/proposals/${p.id}/promote`, {}, { "If-Match": '"2"' }), 200);
    const p2 = await json<{ id: string }>(
      await rest("bob", "POST", "/v1/proposals", { slot: "rest/p2", content: "Drop the cache." }),
      201,
    );
    expect(
      (await rest("bob", "POST", `/v1/proposals/${p2.id}/reject`, {}, { "If-Match": '"1"' })).status,
    ).toBe(403);
    await json(
      await rest("rita", "POST", `/v1/proposals/${p2.id}/reject`, { reason: "no" }, { "If-Match": '"1"' }),
      200,
    );

    const h = await json<{ id: string }>(
      await rest("bob", "POST", "/v1/handoffs", { slot: "rest/h", content: "Half done." }),
      201,
    );
    expect((await rest("bob", "POST", "/v1/handoffs", {})).status).toBe(422);
    const hs = await json<{ items: { id: string }[] }>(
      await rest("bob", "GET", "/v1/handoffs?q=half%20done&consistency=strong"),
      200,
    );
    expect(hs.items.map((i) => i.id)).toContain(h.id);
    expect((await rest("bob", "GET", "/v1/handoffs?limit=0")).status).toBe(422);
    expect((await rest("bob", "GET", `/v1/handoffs/${h.id}`)).status).toBe(200);
    expect((await rest("bob", "GET", `/v1/handoffs/${missing}`)).status).toBe(404);
    await json(
      await rest("bob", "PATCH", `/v1/handoffs/${h.id}`, { content: "Almost done." }, { "If-Match": '"1"' }),
      200,
    );
    expect(
      (await rest("bob", "PATCH", `/v1/handoffs/${h.id}`, { content: "x" }, { "If-Match": '"1"' })).status,
    ).toBe(409);
    await json(
      await rest("bob", "POST", `/v1/handoffs/${h.id}/complete`, { summary: "done" }, { "If-Match": '"2"' }),
      200,
    );
    expect((await rest("bob", "POST", `/v1/handoffs/${h.id}/complete`, {})).status).toBe(412);

    const recalled = await json<{ keys: { id: string | null; label: string }[] }>(
      await rest("bob", "GET", `/v1/keys?q=cache%20ttl&afterPosition=${m.position}`),
      200,
    );
    expect((await rest("bob", "GET", "/v1/keys")).status).toBe(422);
    const key = recalled.keys.find((k) => /cache/i.test(k.label));
    if (key)
      expect((await rest("bob", "GET", `/v1/keys/${encodeURIComponent(key.id ?? key.label)}`)).status).toBe(
        200,
      );
    expect((await rest("bob", "GET", "/v1/keys/no-such-key-zzz")).status).toBe(404);

    await json(await rest("bob", "POST", "/v1/feedback", { memoryId: replaced.id, useful: true }), 201);
    expect((await rest("bob", "POST", "/v1/feedback", { memoryId: replaced.id })).status).toBe(422);

    const status = await json<{ principal: { agent: string } }>(await rest("bob", "GET", "/v1/status"), 200);
    expect(status.principal.agent).toBe("bob");
    expect((await rest(null, "GET", "/v1/status")).status).toBe(401);

    expect((await rest("olga", "GET", `/v1/memories/${replaced.id}`)).status).toBe(404);
  });
});
