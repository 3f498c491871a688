// Gateway copies sharing their state in Redis, in this process against real ingest and search
// on real Postgres, Redis and NATS: an MCP session opened through one copy is served by the
// other (same key only, same episode, ended everywhere, expiring when idle), a write through
// one copy is read strongly through the other, a key's rate limit and an address's wrong keys
// are counted once across copies, and a Redis outage costs no request a 500: each copy keeps
// serving from its own memory and shares again once Redis is back.
import { randomUUID } from "node:crypto";
import { type GatewayHarness, type HarnessOptions, startGatewayHarness } from "@cairn/gateway/testing";
import type { ServiceHandle } from "@cairn/service-runtime";
import { type RedisHandle, startRedis, waitFor } from "@cairn/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcpClient, restRequest } from "../helpers/gateway-client.ts";
import { startServices, stopServices, testServiceEnv } from "../helpers/in-process-services.ts";
import { type SuiteInfrastructure, startSuiteInfrastructure } from "./gateway-stack.ts";

let suite: SuiteInfrastructure;
let services: ServiceHandle[] = [];
/** The gateway copies' own Redis, persisted (AOF), so it can be killed and restarted with its data. */
let gatewayRedis: RedisHandle;
const harnesses: GatewayHarness[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  suite = await startSuiteInfrastructure("gateway_copies");
  gatewayRedis = await startRedis({ appendonly: true, modulePath: null });
  services = await startServices(testServiceEnv(suite.infra), ["ingest", "search"]);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await Promise.all(harnesses.map((h) => h.close()));
  await stopServices(services);
  await gatewayRedis?.stop();
  await suite?.infrastructure.stop();
});

/** `count` gateway copies on one database and one Redis prefix: the same keys work on each. */
async function startCopies(
  count: number,
  options: Partial<HarnessOptions> = {},
): Promise<[GatewayHarness, ...GatewayHarness[]]> {
  const prefix = `copies-${randomUUID()}:`;
  const copies: GatewayHarness[] = [];
  for (let i = 0; i < count; i += 1) {
    const copy = await startGatewayHarness({
      databaseUrl: suite.infra.databaseUrl,
      natsUrl: suite.infra.natsUrl,
      redisUrl: gatewayRedis.url,
      redisPrefix: prefix,
      ...options,
    });
    harnesses.push(copy);
    copies.push(copy);
  }
  return copies as [GatewayHarness, ...GatewayHarness[]];
}

/** An MCP client that continues a session (no initialize) through another copy. */
async function continueSession(baseUrl: string, apiKey: string, sessionId: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    sessionId,
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  const client = new Client({ name: "copies-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A raw MCP request carrying a session id, for answers the SDK's client would hide. */
function mcpRequest(baseUrl: string, apiKey: string, sessionId: string, method = "POST") {
  return fetch(`${baseUrl}/mcp`, {
    method,
    headers: {
      Authorization: `Bearer ${apiKey}`,
      "mcp-session-id": sessionId,
      accept: "application/json, text/event-stream",
      ...(method === "POST" ? { "content-type": "application/json" } : {}),
    },
    ...(method === "POST" ? { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) } : {}),
  });
}

async function openSession(baseUrl: string, apiKey: string) {
  const connected = await connectMcpClient(baseUrl, apiKey, { name: "copies-test" });
  clients.push(connected.client);
  const sessionId = connected.transport.sessionId;
  if (!sessionId) throw new Error("the gateway gave no session id");
  return { client: connected.client, sessionId };
}

describe("MCP sessions across gateway copies", () => {
  it("serves a session opened through one copy through the other, with one episode, and ends it everywhere", async () => {
    const [a, b] = (await startCopies(2)) as [GatewayHarness, GatewayHarness];
    const alice = a.keys.alice;
    const opened = await openSession(a.baseUrl, alice);
    const throughB = await continueSession(b.baseUrl, alice, opened.sessionId);
    expect((await throughB.listTools()).tools.length).toBeGreaterThan(20);

    const first = await callTool(opened.client, "memory_create", {
      slot: "copies/first-turn",
      content: "The release train leaves on Thursdays.",
      kind: "episode",
    });
    const second = await callTool(throughB, "memory_create", {
      slot: "copies/second-turn",
      content: "Hotfixes may board the release train on any day.",
      kind: "episode",
    });
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    expect(second.isError, JSON.stringify(second.content)).toBeFalsy();
    // Read through the copy that did not take the write: it waits for the session's write.
    const readFirst = await callTool(throughB, "memory_read", { id: first.structuredContent.id });
    const readSecond = await callTool(opened.client, "memory_read", { id: second.structuredContent.id });
    const episodeOf = (r: typeof readFirst) =>
      (r.structuredContent.memory as { episode: { id: string } | null }).episode?.id;
    expect(episodeOf(readFirst)).toMatch(/^mcp-session-/);
    expect(episodeOf(readSecond)).toBe(episodeOf(readFirst));

    // Another key may not use it on either copy.
    for (const copy of [a, b]) {
      const hijack = await mcpRequest(copy.baseUrl, a.keys.bob, opened.sessionId);
      expect(hijack.status).toBe(403);
      expect(((await hijack.json()) as { code: string }).code).toBe("forbidden");
    }

    // A server-sent stream is not offered, so a client's GET needs no particular copy.
    const stream = await mcpRequest(b.baseUrl, alice, opened.sessionId, "GET");
    expect(stream.status).toBe(405);
    expect(stream.headers.get("allow")).toBe("POST, DELETE");

    const ended = await mcpRequest(b.baseUrl, alice, opened.sessionId, "DELETE");
    expect(ended.status).toBe(200);
    for (const copy of [a, b]) {
      const gone = await mcpRequest(copy.baseUrl, alice, opened.sessionId);
      expect(gone.status).toBe(404);
      expect(((await gone.json()) as { code: string }).code).toBe("not_found");
    }
  });

  it("serves sessions of several keys, one request after another, each as its own caller and episode", async () => {
    const [a] = await startCopies(1);
    const alice = await openSession(a.baseUrl, a.keys.alice);
    const bob = await openSession(a.baseUrl, a.keys.bob);
    const episodes: Record<string, Set<string>> = { alice: new Set(), bob: new Set() };
    // Taking turns, so each request finds the server the other session's last request used.
    for (let i = 0; i < 3; i += 1) {
      for (const [agent, session] of [
        ["alice", alice],
        ["bob", bob],
      ] as const) {
        const status = await callTool(session.client, "memory_status");
        expect((status.structuredContent.principal as { agent: string }).agent).toBe(agent);
        const created = await callTool(session.client, "memory_create", {
          slot: `copies/${agent}-turn-${i}`,
          content: `Turn ${i} of ${agent}'s conversation about the build cache.`,
          scope: "agent",
        });
        expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
        const read = await callTool(session.client, "memory_read", { id: created.structuredContent.id });
        const memory = read.structuredContent.memory as { agent: string; episode: { id: string } };
        expect(memory.agent).toBe(agent);
        episodes[agent]?.add(memory.episode.id);
      }
    }
    expect(episodes.alice?.size).toBe(1);
    expect(episodes.bob?.size).toBe(1);
    expect([...(episodes.alice ?? [])]).not.toEqual([...(episodes.bob ?? [])]);
  });

  it("ends a session left idle, on every copy, and keeps one in use", async () => {
    const [a, b] = (await startCopies(2, { mcpSessionIdleMs: 1500 })) as [GatewayHarness, GatewayHarness];
    const alice = a.keys.alice;
    const used = await openSession(a.baseUrl, alice);
    const idle = await openSession(b.baseUrl, alice);
    for (let i = 0; i < 3; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      const copy = i % 2 === 0 ? b : a;
      expect((await mcpRequest(copy.baseUrl, alice, used.sessionId)).status).toBe(200);
    }
    // 2.1 s since the idle one's last use; the used one was used 0.7 s ago.
    for (const copy of [a, b]) {
      expect((await mcpRequest(copy.baseUrl, alice, idle.sessionId)).status).toBe(404);
    }
    expect((await mcpRequest(a.baseUrl, alice, used.sessionId)).status).toBe(200);
  });
});

describe("reads, limits and throttles across gateway copies", () => {
  it("reads a write made through one copy strongly through the other", async () => {
    const [a, b] = (await startCopies(2)) as [GatewayHarness, GatewayHarness];
    const created = await restRequest(a.baseUrl, a.keys.lead, {
      method: "POST",
      path: "/v1/memories",
      body: { slot: "copies/ryw", content: "The staging database is called heron." },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id, position } = (await created.json()) as { id: string; position: number };
    const status = await restRequest(b.baseUrl, a.keys.lead, { method: "GET", path: "/v1/status" });
    expect(((await status.json()) as { lastWritePosition: number }).lastWritePosition).toBe(position);
    const found = await restRequest(b.baseUrl, a.keys.lead, {
      method: "GET",
      path: `/v1/memories?q=${encodeURIComponent("staging database heron")}&consistency=strong`,
    });
    expect(found.status).toBe(200);
    const results = ((await found.json()) as { results: { document: { id: string } }[] }).results;
    expect(results.map((r) => r.document.id)).toContain(id);
  });

  it("counts a key's requests once across copies, with RateLimit-Limit and Retry-After", async () => {
    const copies = (await startCopies(2, { rateLimit: { perMinute: 0.01, burst: 6 } })) as [
      GatewayHarness,
      GatewayHarness,
    ];
    const key = copies[0].keys.bob;
    const statuses: number[] = [];
    let refusal: Response | undefined;
    for (let i = 0; i < 12; i += 1) {
      const copy = copies[i % 2 === 0 ? 0 : 1];
      const res = await restRequest(copy.baseUrl, key, { method: "GET", path: "/v1/proposals" });
      expect(res.headers.get("ratelimit-limit")).toBe("6");
      statuses.push(res.status);
      if (res.status === 429) refusal ??= res;
    }
    // Counted per copy, each would have let all twelve through.
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    expect(Number(refusal?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // MCP answers carry the same headers.
    const mcp = await fetch(`${copies[1].baseUrl}/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(mcp.status).toBe(429);
    expect(mcp.headers.get("ratelimit-limit")).toBe("6");
  });

  it("throttles an address whose wrong keys, summed over the copies, reach the limit", async () => {
    const [a, b] = (await startCopies(2, { authFailures: { limit: 3, windowMs: 60_000 } })) as [
      GatewayHarness,
      GatewayHarness,
    ];
    const wrong = (copy: GatewayHarness, i: number) =>
      restRequest(copy.baseUrl, `cairn_wrong-key-${i}-0123456789abcdefghijkl`, {
        method: "GET",
        path: "/v1/status",
      });
    expect((await wrong(a, 1)).status).toBe(401);
    expect((await wrong(b, 2)).status).toBe(401);
    expect((await wrong(a, 3)).status).toBe(401);
    const throttled = await wrong(b, 4);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(1);
    // Until the window ends, even a right key from that address waits, on either copy.
    expect((await restRequest(a.baseUrl, a.keys.alice, { method: "GET", path: "/v1/status" })).status).toBe(
      429,
    );
  });
});

describe("a Redis outage under gateway copies", () => {
  it("keeps serving from each copy's memory, refuses only what it cannot tell (503), and shares again once Redis is back", async () => {
    const [a, b] = (await startCopies(2, { rateLimit: { perMinute: 6000, burst: 100 } })) as [
      GatewayHarness,
      GatewayHarness,
    ];
    const alice = a.keys.alice;
    const known = await openSession(a.baseUrl, alice);
    expect((await mcpRequest(b.baseUrl, alice, known.sessionId)).status).toBe(200);
    // The AOF is written every second: let the session reach the disk before the crash.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await gatewayRedis.kill();

    try {
      // Both copies served the session before: both still serve it.
      for (const copy of [a, b])
        expect((await mcpRequest(copy.baseUrl, alice, known.sessionId)).status).toBe(200);
      // A session opened now is this copy's until Redis is back; the other cannot tell it from
      // an ended one, so it answers 503 with Retry-After rather than 404.
      const fresh = await openSession(a.baseUrl, alice);
      expect((await callTool(fresh.client, "memory_status")).isError).toBeFalsy();
      const unknown = await mcpRequest(b.baseUrl, alice, fresh.sessionId);
      expect(unknown.status).toBe(503);
      expect(Number(unknown.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Ending a session cannot reach the other copies now: 503, and it stays open.
      expect((await mcpRequest(b.baseUrl, alice, known.sessionId, "DELETE")).status).toBe(503);
      // REST and failed keys are limited per copy meanwhile: answered, never a 500.
      const write = await restRequest(b.baseUrl, alice, {
        method: "POST",
        path: "/v1/memories",
        body: { slot: "copies/outage", content: "Written while the gateway's Redis was away." },
      });
      expect(write.status, await write.clone().text()).toBe(201);
      expect(write.headers.get("ratelimit-limit")).toBe("100");
      const wrong = await restRequest(a.baseUrl, "cairn_wrong-key-during-outage-0123456789ab", {
        method: "GET",
        path: "/v1/status",
      });
      expect(wrong.status).toBe(401);

      await gatewayRedis.restart();
      // Back: the copy that opened a session meanwhile wrote it to Redis, so the other serves it.
      await waitFor(async () => (await mcpRequest(b.baseUrl, alice, fresh.sessionId)).status === 200, {
        timeoutMs: 15_000,
        intervalMs: 200,
        description: "the session opened during the outage served by the other copy",
      });
      expect((await mcpRequest(b.baseUrl, alice, known.sessionId)).status).toBe(200);
      // And the key's bucket is in Redis again, shared.
      await restRequest(a.baseUrl, alice, { method: "GET", path: "/v1/proposals" });
      const redis = new Redis(gatewayRedis.url);
      try {
        const buckets = await redis.keys("copies-*:rate:*");
        expect(buckets.some((key) => key.endsWith(`:rate:${a.keyIds.alice}`))).toBe(true);
      } finally {
        redis.disconnect();
      }
    } finally {
      if (gatewayRedis.pid === undefined) await gatewayRedis.restart();
    }
  });
});
