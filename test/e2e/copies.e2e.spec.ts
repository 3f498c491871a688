// Two copies of every service, as processes, behind one address: a proxy that sends each
// request to the next gateway copy in turn, with no affinity of any kind. Whichever copy
// answers, an MCP session works (opened through one copy, used through the other, one
// episode), REST reads see the writes made before them, a key's rate limit is counted once,
// and both copies of ingest, search, ranking and maintenance answer requests.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { ServiceName } from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import { freePort, waitFor } from "@cairn/testing";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcpClient, restRequest, type ToolResult } from "../helpers/gateway-client.ts";
import { type RoundRobinProxy, startRoundRobinProxy } from "../helpers/round-robin-proxy.ts";
import { repoRoot, type ServiceProcess, spawnService } from "../helpers/service-processes.ts";
import { type Infrastructure, startInfrastructure } from "../helpers/start-infrastructure.ts";

const run = promisify(execFile);
const adminKey = "cairn_copies-admin-key-0123456789abcdefgh";
const services: readonly ServiceName[] = ["ingest", "search", "ranking", "maintenance", "gateway"];
/** Every key's burst; the rate-limit check spends one key's, the flows stay well below. */
const burst = 60;

let infrastructure: Infrastructure;
let proxy: RoundRobinProxy;
const processes: ServiceProcess[] = [];
const gatewayUrls: string[] = [];
const clients: Client[] = [];
let env: Record<string, string>;

async function createKey(agent: string, role = "agent"): Promise<string> {
  const { stdout } = await run(
    process.execPath,
    ["scripts/cairn.ts", "keys", "create", "--tenant", "acme", "--agent", agent, "--role", role, "--json"],
    { cwd: repoRoot, env: { ...process.env, ...env } },
  );
  return (JSON.parse(stdout) as { key: string }).key;
}

/** One copy of every service; resolves once its gateway says every service answers. */
async function startCopy(copy: number): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  for (const name of services) {
    processes.push(
      spawnService(name, {
        ...env,
        CAIRN_INSTANCE: `${name}-copy${copy}`,
        ...(name === "gateway" ? { CAIRN_PORT: String(port) } : {}),
      }),
    );
  }
  try {
    await waitFor(async () => (await fetch(`${url}/readyz`)).ok, {
      timeoutMs: 120_000,
      intervalMs: 500,
      description: `copy ${copy}'s gateway answering /readyz`,
    });
  } catch (error) {
    const logs = processes.flatMap((p) => p.logs.slice(-10).map((line) => `${p.name}: ${line}`));
    throw new Error(`copy ${copy} did not start:\n${logs.join("\n")}`, { cause: error });
  }
  gatewayUrls.push(url);
}

beforeAll(async () => {
  infrastructure = await startInfrastructure();
  const databaseUrl = infrastructure.postgres.url("postgres");
  await migrateToLatest(databaseUrl);
  env = {
    CAIRN_DATABASE_URL: databaseUrl,
    CAIRN_REDIS_URL: infrastructure.redis.url,
    CAIRN_NATS_URL: infrastructure.nats.url,
    CAIRN_ADMIN_KEY: adminKey,
    CAIRN_DEFAULT_TENANT: "acme",
    CAIRN_KEY_CACHE_MS: "0",
    CAIRN_RATE_LIMIT_BURST: String(burst),
    // Next to nothing comes back during the test: a spent burst stays spent.
    CAIRN_RATE_LIMIT_PER_MINUTE: "0.01",
  };
  // One copy first (it creates the event stream and the admin key), then the second.
  await startCopy(1);
  await startCopy(2);
  proxy = await startRoundRobinProxy(gatewayUrls);
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await proxy?.close();
  await Promise.all(processes.map((p) => p.stop()));
  await infrastructure?.stop();
}, 120_000);

const ok = (result: ToolResult) => {
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent;
};

/** Which gateway copies answered requests carrying this session id, and with what. */
function copiesServing(sessionId: string) {
  const requests = proxy.served.filter((r) => r.sessionId === sessionId);
  return { copies: new Set(requests.map((r) => r.copy)), statuses: requests.map((r) => r.status) };
}

describe("two copies of every service behind one address", () => {
  it("serves one MCP session through both gateway copies, as one episode", async () => {
    const key = await createKey("copies-mcp");
    const { client, transport } = await connectMcpClient(proxy.url, key, { name: "copies-e2e" });
    clients.push(client);
    const sessionId = transport.sessionId as string;
    expect(sessionId).toBeTruthy();

    const ids: string[] = [];
    for (const [i, content] of [
      "The incident channel is #ops-fire.",
      "Pages go to the on-call engineer first.",
      "Postmortems are due within five working days.",
    ].entries()) {
      ids.push(
        ok(await callTool(client, "memory_create", { slot: `copies/turn-${i}`, content })).id as string,
      );
    }
    // Each read may reach the copy that did not take the write: it still sees it.
    const episodes = new Set<string>();
    for (const id of ids) {
      const memory = ok(await callTool(client, "memory_read", { id })).memory as { episode: { id: string } };
      episodes.add(memory.episode.id);
    }
    expect(episodes.size).toBe(1);
    const found = ok(await callTool(client, "memory_search", { query: "where do pages go" })).results as {
      slot: string;
    }[];
    expect(found.map((r) => r.slot)).toContain("copies/turn-1");

    const serving = copiesServing(sessionId);
    expect(serving.copies).toEqual(new Set([0, 1]));
    // GET (no server-sent stream offered) is the only refusal.
    expect(serving.statuses.filter((s) => s >= 400 && s !== 405)).toEqual([]);
  });

  it("reads REST writes whichever copy answers the read", async () => {
    const key = await createKey("copies-rest");
    const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
      restRequest(proxy.url, key, { method, path, body, headers });
    const before = proxy.served.length;

    const created = await call("POST", "/v1/memories", {
      slot: "copies/backup-window",
      content: "Backups run at 02:00 UTC and take about forty minutes.",
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const read = await call("GET", `/v1/memories/${id}?consistency=strong`);
    expect(read.status, await read.clone().text()).toBe(200);
    const etag = read.headers.get("etag") as string;

    const revised = await call(
      "PATCH",
      `/v1/memories/${id}`,
      { content: "Backups run at 03:00 UTC and take about forty minutes." },
      { "If-Match": etag },
    );
    expect(revised.status, await revised.clone().text()).toBe(200);
    const reread = await call("GET", `/v1/memories/${id}?consistency=strong`);
    expect(
      ((await reread.json()) as { document: { content: string; version: number } }).document,
    ).toMatchObject({
      content: "Backups run at 03:00 UTC and take about forty minutes.",
      version: 2,
    });
    const searched = await call(
      "GET",
      `/v1/memories?q=${encodeURIComponent("when do backups run")}&consistency=strong`,
    );
    const results = ((await searched.json()) as { results: { document: { id: string; content: string } }[] })
      .results;
    expect(results.find((r) => r.document.id === id)?.document.content).toContain("03:00");

    const answeredBy = new Set(proxy.served.slice(before).map((r) => r.copy));
    expect(answeredBy).toEqual(new Set([0, 1]));
  });

  it("counts a key's rate limit once across both gateway copies", async () => {
    const key = await createKey("copies-limit");
    const statuses: number[] = [];
    for (let i = 0; i < burst + 10; i += 1) {
      // Refused by validation after the guard: cheap, and counted like any request.
      const res = await restRequest(proxy.url, key, { method: "GET", path: "/v1/memories/not-an-id" });
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // Each copy saw half; counted per copy, none would have been refused.
    expect(statuses.filter((s) => s !== 429)).toHaveLength(burst);
    expect(statuses.slice(burst).every((s) => s === 429)).toBe(true);
  });

  it("has both copies of every service answering", async () => {
    const seen: Record<string, Set<string>> = {};
    await waitFor(
      async () => {
        const res = await restRequest(proxy.url, adminKey, { method: "GET", path: "/v1/status" });
        const body = (await res.json()) as { services: Record<string, { ok: boolean; instance?: string }> };
        for (const [service, health] of Object.entries(body.services)) {
          if (!health.ok || !health.instance) continue;
          seen[service] ??= new Set();
          seen[service].add(health.instance);
        }
        return ["ingest", "search", "ranking", "maintenance"].every((s) => seen[s]?.size === 2);
      },
      { timeoutMs: 60_000, intervalMs: 100, description: "both copies of each service answering" },
    );
    expect(seen.ingest).toEqual(new Set(["ingest-copy1", "ingest-copy2"]));
    expect(seen.maintenance).toEqual(new Set(["maintenance-copy1", "maintenance-copy2"]));
  });
});
