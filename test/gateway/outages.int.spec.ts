// Outages as a client of the gateway sees them, with the real gateway, ingest and search
// services in this process on real Postgres, Redis and NATS: a stopped ingest is a 503 and a
// service that does not answer in time a 504, both with `Retry-After` and a hint naming the
// idempotency key of the surface; the retry with that key lands once once ingest is back.
import { randomUUID } from "node:crypto";
import { connectBus } from "@cairn/bus";
import { ingestRpcs, queueGroup } from "@cairn/contracts";
import type { ServiceHandle } from "@cairn/service-runtime";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcpClient, restRequest } from "../helpers/gateway-client.ts";
import { startServices, stopServices } from "../helpers/in-process-services.ts";
import { type GatewayStack, startGatewayStack } from "./gateway-stack.ts";

const adminKey = "cairn_outage-admin-key-0123456789abcdef";

let stack: GatewayStack;
/** Ingest, stopped and started again by the tests. */
let ingest: ServiceHandle[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startGatewayStack({
    name: "gateway_outage",
    adminKey,
    services: ["ingest", "search"],
    env: { CAIRN_BACKEND_TIMEOUT_MS: "6000" },
  });
  ingest = stack.services.filter((s) => s.name === "ingest");
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await stopServices(ingest);
  await stack?.stop();
});

/** Ingest again, as a restart brings it back. */
async function restartIngest() {
  ingest = await startServices(stack.env, ["ingest"]);
}

function write(body: unknown, idempotencyKey?: string) {
  return restRequest(stack.baseUrl, adminKey, {
    method: "POST",
    path: "/v1/memories",
    body,
    headers: idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey },
  });
}

type Problem = { code: string; hint?: string; status: number };

/** The problem of a failed answer, with the wait it asks for. */
async function problemOf(res: Response) {
  const retryAfter = res.headers.get("retry-after");
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  const problem = (await res.json()) as Problem;
  expect(problem.status).toBe(res.status);
  return { ...problem, retryAfter: retryAfter === null ? null : Number(retryAfter) };
}

describe("outages", () => {
  it("answers a write while ingest is down with 503 and Retry-After, and its keyed retry lands once back", async () => {
    await stopServices(ingest);
    const key = randomUUID();
    const body = { slot: "outage/keyed", content: "Written through an ingest restart." };

    const keyed = await problemOf(await write(body, key));
    expect(keyed).toMatchObject({ status: 503, code: "unavailable" });
    expect(keyed.retryAfter).toBeGreaterThanOrEqual(1);
    expect(keyed.hint).toContain("same `Idempotency-Key` header");
    expect(keyed.hint).not.toContain("idempotencyKey");

    // Without a key the hint says how to make the next write safe.
    const unkeyed = await problemOf(await write({ slot: "outage/unkeyed", content: "No key." }));
    expect(unkeyed).toMatchObject({ status: 503, code: "unavailable" });
    expect(unkeyed.hint).toContain("Idempotency-Key");

    const { client } = await connectMcpClient(stack.baseUrl, adminKey, { name: "outage-test" });
    clients.push(client);
    const tool = await callTool(client, "memory_create", {
      ...body,
      slot: "outage/mcp",
      idempotency_key: key,
    });
    expect(tool.isError).toBe(true);
    const error = tool.structuredContent.error as { code: string; hint: string; retryAfterSeconds: number };
    expect(error.code).toBe("unavailable");
    expect(error.hint).toContain("same `idempotency_key` argument");
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    const ready = await fetch(`${stack.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(Number(ready.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    await restartIngest();
    const landed = await write(body, key);
    expect(landed.status, await landed.clone().text()).toBe(201);
    const again = await write(body, key);
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(await landed.json());
  });

  it("answers a write that no service answers in time with 504 and Retry-After", async () => {
    await stopServices(ingest);
    // A copy of ingest that takes the command and never answers, as a hung one would.
    const nc = await connectBus({ url: stack.infrastructure.nats.url, name: "hung-ingest" });
    const hung = nc.subscribe(ingestRpcs["memory.create"].subject, { queue: queueGroup("ingest") });
    try {
      await nc.flush();
      const slow = await problemOf(
        await write({ slot: "outage/slow", content: "Nobody answers." }, randomUUID()),
      );
      expect(slow).toMatchObject({ status: 504, code: "timeout" });
      expect(slow.retryAfter).toBeGreaterThanOrEqual(1);
      expect(slow.hint).toContain("same `Idempotency-Key` header");
    } finally {
      hung.unsubscribe();
      await nc.close();
      await restartIngest();
    }
  });

  it("sends a keyed write again when the copy that took it never answers, and answers once one is back", async () => {
    await stopServices(ingest);
    const nc = await connectBus({ url: stack.infrastructure.nats.url, name: "dying-ingest" });
    // Takes the first delivery and dies without answering, as a killed ingest would.
    nc.subscribe(ingestRpcs["memory.create"].subject, { queue: queueGroup("ingest"), max: 1 });
    await nc.flush();
    const key = randomUUID();
    const body = { slot: "outage/resent", content: "Sent again once ingest was back." };
    const started = Date.now();
    const pending = write(body, key);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await restartIngest();
    const landed = await pending;
    await nc.close();
    expect(landed.status, await landed.clone().text()).toBe(201);
    // Answered by a resend, before the whole backend timeout (6 s here) ran out.
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await write(body, key)).status).toBe(201);
  });
});
