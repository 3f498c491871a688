// Authentication while Postgres (the API key store) is down, with the real gateway service in
// this process: a key it has checked before keeps working from its cache, a key it cannot
// check is a 503 with `Retry-After` (never a 401 or a 500), and it recovers by itself.
import { waitFor } from "@cairn/testing";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcpClient } from "../helpers/gateway-client.ts";
import { type GatewayStack, startGatewayStack } from "./gateway-stack.ts";

const adminKey = "cairn_keystore-admin-key-0123456789abcd";
const unknownKey = "cairn_never-created-key-0123456789abcdef";
/** How long a checked key is trusted before the store is asked again. */
const cacheMs = 200;

let stack: GatewayStack;
const clients: Client[] = [];

beforeAll(async () => {
  // Only the gateway: what is under test is its answer when its own store is gone.
  stack = await startGatewayStack({
    name: "gateway_keystore",
    adminKey,
    services: [],
    env: { CAIRN_KEY_CACHE_MS: String(cacheMs) },
  });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await stack?.stop();
});

const status = (key: string) =>
  fetch(`${stack.baseUrl}/v1/status`, { headers: { Authorization: `Bearer ${key}` } });

describe("the API key store down", () => {
  it("serves a known key from its cache, answers an unknown one 503 with Retry-After, and recovers", async () => {
    const before = await status(adminKey);
    expect(before.status).toBe(200);
    const { client } = await connectMcpClient(stack.baseUrl, adminKey, { name: "keystore-test" });
    clients.push(client);

    await stack.infrastructure.postgres.kill();
    try {
      // Past the cache's lifetime: the gateway has to ask the store, which is gone.
      await new Promise((resolve) => setTimeout(resolve, cacheMs * 2));

      const known = await status(adminKey);
      expect(known.status, await known.clone().text()).toBe(200);
      expect(((await known.json()) as { principal: { tenant: string } }).principal.tenant).toBe("acme");
      const tool = await callTool(client, "memory_status", {});
      expect(tool.isError, JSON.stringify(tool.structuredContent)).toBeFalsy();

      const unknown = await status(unknownKey);
      expect(unknown.status).toBe(503);
      expect(Number(unknown.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const problem = (await unknown.json()) as { code: string; detail: string };
      expect(problem.code).toBe("unavailable");
      expect(problem.detail).not.toContain(unknownKey);
    } finally {
      await stack.infrastructure.postgres.restart();
    }

    // Back by itself: the unknown key is told it is unknown again, the known one still works.
    await waitFor(async () => (await status(unknownKey)).status === 401, {
      timeoutMs: 30_000,
      intervalMs: 200,
      description: "the gateway checking keys against Postgres again",
    });
    expect((await status(adminKey)).status).toBe(200);
  });
});
