// The admin REST routes of maintenance through the real gateway (in this process) and the
// back end: admins run jobs and read the doctor in their own tenant; and what a purge erased
// is in no REST reply (read, search, list, context).

import { type GatewayHarness, startGatewayHarness, teamKeys } from "@cairn/gateway/testing";
import { infraTest } from "@cairn/testing";
import { describe, expect } from "vitest";
import { type Cairn, dayMs, startCairn } from "./maintenance-harness.ts";

const test = infraTest.extend("stack", async ({ databaseUrl, redis, nats, uniqueName }, { onCleanup }) => {
  const cairn = await startCairn({ databaseUrl, redisUrl: redis.url, natsUrl: nats.url, uniqueName });
  const gateway = await startGatewayHarness({ databaseUrl, natsUrl: nats.url });
  onCleanup(async () => {
    await gateway.close();
    await cairn.stop();
  });
  return { cairn, gateway };
});

type Stack = { cairn: Cairn; gateway: GatewayHarness };

async function call(
  stack: Stack,
  key: keyof GatewayHarness["keys"],
  method: string,
  path: string,
  body?: unknown,
) {
  const res = await fetch(`${stack.gateway.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${stack.gateway.keys[key]}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const secret = "Quintessa";
const content = `${secret} Marlowe signs the vendor contracts and sits on the third floor.`;

describe("maintenance through the gateway", () => {
  test("admins run jobs and read the doctor; a purge leaves nothing in any REST reply", async ({ stack }) => {
    const { cairn } = stack;
    const created = await call(stack, "alice", "POST", "/v1/memories", {
      slot: "contracts-owner",
      content,
      kind: "fact",
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;

    expect((await call(stack, "alice", "POST", "/v1/maintenance/runs", { job: "verification" })).status).toBe(
      403,
    );
    expect((await call(stack, "reviewer", "GET", "/v1/maintenance/doctor")).status).toBe(403);
    const verification = await call(stack, "admin", "POST", "/v1/maintenance/runs", { job: "verification" });
    expect(verification.status).toBe(200);
    expect(verification.json).toMatchObject({
      job: "verification",
      mode: "dry_run",
      outcome: "ok",
      tenant: "acme",
    });
    const status = await call(stack, "admin", "GET", "/v1/maintenance");
    expect(status.json).toMatchObject({ tenants: [{ tenant: "acme" }] });
    // Everyone's status carries the doctor's verdict for the tenant (no content in it).
    const overall = await call(stack, "alice", "GET", "/v1/status");
    expect(overall.json).toMatchObject({ health: { status: "ok", summary: expect.stringMatching(/^ok: /) } });
    const doctor = await call(stack, "admin", "GET", "/v1/maintenance/doctor?summary=true");
    expect(doctor.json).toMatchObject({ status: "ok", tenant: "acme", mode: "summary" });
    const openapi = await call(stack, "admin", "GET", "/openapi.json");
    expect(Object.keys(openapi.json.paths as object)).toEqual(
      expect.arrayContaining(["/v1/maintenance/runs", "/v1/maintenance", "/v1/maintenance/doctor"]),
    );

    // Deleted (two steps), then purged by GC through the admin route, with the preview's token.
    await cairn.twoStep("memory.delete", { principal: teamKeys.alice, id, expectedVersion: 1, reason: null });
    cairn.clock.now = new Date(Date.now() + 31 * dayMs);
    const preview = await call(stack, "admin", "POST", "/v1/maintenance/runs", { job: "gc" });
    expect(preview.json).toMatchObject({ mode: "dry_run", token: expect.any(String) });
    const purged = await call(stack, "admin", "POST", "/v1/maintenance/runs", {
      job: "gc",
      apply: true,
      token: preview.json.token,
    });
    expect(purged.json).toMatchObject({
      outcome: "ok",
      actions: [{ action: "purge", ids: [id], status: "applied" }],
    });
    await cairn.settle();

    const replies = [
      await call(stack, "admin", "GET", `/v1/memories/${id}?consistency=strong`),
      await call(stack, "alice", "GET", `/v1/memories/${id}`),
      await call(stack, "admin", "GET", `/v1/memories?q=${secret}&status=deleted,active`),
      await call(stack, "admin", "GET", "/v1/memories?status=deleted"),
      await call(
        stack,
        "admin",
        "GET",
        `/v1/context?task=${encodeURIComponent(`who signs vendor contracts, ${secret}?`)}`,
      ),
      await call(stack, "admin", "GET", `/v1/keys?q=${secret}`),
    ];
    for (const reply of replies) {
      expect(reply.status, reply.text).toBeLessThan(500);
      expect(reply.text).not.toContain(secret);
    }
    expect(replies[0]?.json).toMatchObject({ document: { status: "deleted", content: "" } });
  });
});
