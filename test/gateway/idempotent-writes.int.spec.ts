// Safe retries through the gateway against the real ingest and search services on real
// Postgres, Redis and NATS: a write repeated with the same idempotency key (REST header, MCP
// argument) answers exactly what the first did and writes nothing again; the same key with
// another request is a 409; a malformed key is a 422 that does not repeat it.
import { randomUUID } from "node:crypto";
import { type GatewayHarness, type KeyName, startGatewayHarness } from "@cairn/gateway/testing";
import type { ServiceHandle } from "@cairn/service-runtime";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcpClient, restRequest } from "../helpers/gateway-client.ts";
import { startServices, stopServices, testServiceEnv } from "../helpers/in-process-services.ts";
import { type SuiteInfrastructure, startSuiteInfrastructure } from "./gateway-stack.ts";

let suite: SuiteInfrastructure;
let gw: GatewayHarness;
let services: ServiceHandle[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  suite = await startSuiteInfrastructure("gateway_idem");
  services = await startServices(testServiceEnv(suite.infra), ["ingest", "search"]);
  gw = await startGatewayHarness({ databaseUrl: suite.infra.databaseUrl, natsUrl: suite.infra.natsUrl });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await gw?.close();
  await stopServices(services);
  await suite?.infrastructure.stop();
});

function rest(key: KeyName, method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  return restRequest(gw.baseUrl, gw.keys[key], { method, path, body, headers });
}

function createKeyed(idempotencyKey: string, body: unknown) {
  return rest("alice", "POST", "/v1/memories", body, { "Idempotency-Key": idempotencyKey });
}

/** What a client sees of an answer: status, the headers a write sets, and the body. */
async function answerOf(res: Response) {
  return {
    status: res.status,
    etag: res.headers.get("etag"),
    position: res.headers.get("cairn-position"),
    body: (await res.json()) as Record<string, unknown>,
  };
}

async function slotsNamed(key: KeyName, slot: string): Promise<string[]> {
  const res = await rest(key, "GET", "/v1/memories?limit=200&consistency=strong");
  const { results } = (await res.json()) as { results: { document: { id: string; slot: string } }[] };
  return results.filter((r) => r.document.slot === slot).map((r) => r.document.id);
}

describe("REST: Idempotency-Key", () => {
  it("answers a retried create exactly as the first time and stores one memory", async () => {
    const key = randomUUID();
    const body = { slot: "idem/create", content: "Deploys go to eu-west-1." };
    const first = await answerOf(await createKeyed(key, body));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // The draft standard's quoted form names the same key.
    const retried = await answerOf(await createKeyed(`"${key}"`, body));
    expect(retried).toEqual(first);
    expect(await slotsNamed("alice", "idem/create")).toEqual([first.body.id]);

    // Without a key the same request is a second attempt, refused because the slot is taken.
    const unkeyed = await rest("alice", "POST", "/v1/memories", body);
    expect(unkeyed.status).toBe(409);
  });

  it("refuses the same key with another body with 409 idempotency_conflict and writes nothing", async () => {
    const key = randomUUID();
    const first = await createKeyed(key, { slot: "idem/conflict", content: "First text." });
    expect(first.status).toBe(201);
    const other = await createKeyed(key, { slot: "idem/conflict-other", content: "Another text." });
    expect(other.status).toBe(409);
    expect(other.headers.get("content-type")).toContain("application/problem+json");
    const problem = (await other.json()) as { code: string; hint?: string };
    expect(problem.code).toBe("idempotency_conflict");
    expect(problem.hint).toContain("Idempotency-Key");
    expect(problem.hint).not.toContain("idempotencyKey");
    expect(await slotsNamed("alice", "idem/conflict-other")).toEqual([]);
  });

  it("answers a retried update, a retried feedback and a retried confirmed delete as the first time", async () => {
    const created = await rest("bob", "POST", "/v1/memories", {
      slot: "idem/changes",
      content: "Port 8080.",
    });
    const { id } = (await created.json()) as { id: string };

    const updateKey = randomUUID();
    const update = () =>
      rest(
        "bob",
        "PATCH",
        `/v1/memories/${id}`,
        { content: "Port 9090." },
        {
          "If-Match": '"1"',
          "Idempotency-Key": updateKey,
        },
      );
    const updated = await answerOf(await update());
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    // A retry at the version it was first sent with is answered, not refused as stale.
    expect(await answerOf(await update())).toEqual(updated);
    const read = await rest("bob", "GET", `/v1/memories/${id}?consistency=strong`);
    expect(((await read.json()) as { document: { version: number } }).document.version).toBe(2);

    const feedbackKey = randomUUID();
    const feedback = () =>
      rest("bob", "POST", "/v1/feedback", { memoryId: id, useful: true }, { "Idempotency-Key": feedbackKey });
    const given = await answerOf(await feedback());
    expect(given.status).toBe(201);
    expect(await answerOf(await feedback())).toEqual(given);

    const plan = await rest("bob", "DELETE", `/v1/memories/${id}?dryRun=true`, undefined, {
      "If-Match": '"2"',
    });
    const { token } = (await plan.json()) as { token: string };
    const deleteKey = randomUUID();
    const confirm = () =>
      rest("bob", "DELETE", `/v1/memories/${id}?token=${encodeURIComponent(token)}`, undefined, {
        "If-Match": '"2"',
        "Idempotency-Key": deleteKey,
      });
    const deleted = await answerOf(await confirm());
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(await answerOf(await confirm())).toEqual(deleted);
  });

  it("refuses a malformed key with 422 that states the rule and does not repeat the key", async () => {
    for (const bad of ["has space", "a".repeat(201), "one,two", "caf\u00e9"]) {
      const res = await createKeyed(bad, { slot: "idem/bad-key", content: "Never stored." });
      expect(res.status, bad).toBe(422);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ code: "validation_failed" });
      expect(text).toContain("Idempotency-Key");
      expect(text).not.toContain(bad);
    }
    expect(await slotsNamed("alice", "idem/bad-key")).toEqual([]);
  });

  it("creates one API key per idempotency key and says which one on a retry", async () => {
    const key = randomUUID();
    const create = () =>
      rest("admin", "POST", "/v1/api-keys", { agent: "idem-bot" }, { "Idempotency-Key": key });
    const first = await create();
    expect(first.status).toBe(201);
    const { record } = (await first.json()) as { record: { id: string } };
    const retried = await create();
    expect(retried.status).toBe(409);
    const problem = (await retried.json()) as { code: string; details: { id: string } };
    expect(problem).toMatchObject({ code: "idempotency_conflict", details: { id: record.id } });
    const listed = await rest("admin", "GET", "/v1/api-keys");
    const { keys } = (await listed.json()) as { keys: { agent: string }[] };
    expect(keys.filter((k) => k.agent === "idem-bot")).toHaveLength(1);
  });

  it("lists the header on every write in the OpenAPI document", async () => {
    const document = (await (await fetch(`${gw.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const create = document.paths["/v1/memories"]?.post;
    expect(create?.parameters?.some((p) => p.name === "Idempotency-Key" && p.in === "header")).toBe(true);
    const search = document.paths["/v1/memories"]?.get;
    expect(search?.parameters?.some((p) => p.name === "Idempotency-Key")).toBe(false);
  });
});

describe("MCP: idempotency_key", () => {
  async function mcp(key: KeyName) {
    const { client } = await connectMcpClient(gw.baseUrl, gw.keys[key], { name: "idempotency-test" });
    clients.push(client);
    return client;
  }

  it("answers a retried tool call as the first time, and the same key with other arguments as a conflict", async () => {
    const client = await mcp("alice");
    const key = randomUUID();
    const args = { slot: "idem/mcp", content: "The build cache lives in S3.", idempotency_key: key };
    const first = await callTool(client, "memory_create", args);
    expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
    const retried = await callTool(client, "memory_create", args);
    expect(retried.isError).toBeFalsy();
    expect(retried.structuredContent).toEqual(first.structuredContent);
    expect(await slotsNamed("alice", "idem/mcp")).toEqual([first.structuredContent.id]);

    const other = await callTool(client, "memory_create", { ...args, slot: "idem/mcp-other" });
    expect(other.isError).toBe(true);
    const error = other.structuredContent.error as { code: string; hint: string };
    expect(error.code).toBe("idempotency_conflict");
    expect(error.hint).toContain("idempotency_key");
    expect(error.hint).not.toContain("idempotencyKey");
  });

  it("offers the argument on every write tool and none of the reads, and refuses a malformed one", async () => {
    const client = await mcp("alice");
    const { tools } = await client.listTools();
    const withKey = tools.filter((t) => Object.hasOwn(t.inputSchema.properties ?? {}, "idempotency_key"));
    // read_memory is no read-only tool only because it strengthens the link it came by; it
    // writes nothing the caller asked for.
    const writes = tools.filter((t) => t.annotations?.readOnlyHint === false && t.name !== "read_memory");
    expect(withKey.map((t) => t.name).sort()).toEqual(writes.map((t) => t.name).sort());
    expect(withKey.length).toBeGreaterThanOrEqual(15);
    const bad = await callTool(client, "memory_create", {
      slot: "idem/mcp-bad",
      content: "Never stored.",
      idempotency_key: "has space",
    });
    expect(bad.isError).toBe(true);
    expect((bad.structuredContent.error as { code: string }).code).toBe("validation_failed");
  });
});
