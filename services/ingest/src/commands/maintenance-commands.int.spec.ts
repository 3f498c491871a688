// The maintenance commands through NATS against real Postgres: consolidate, forget and purge
// in two steps, and the run record.
import { randomUUID } from "node:crypto";
import {
  type MaintenanceCommandName,
  type PlanResult,
  streamIdFor,
  type WriteResult,
} from "@cairn/contracts";
import { createMemorySealStore } from "@cairn/event-store";
import { describe, expect } from "vitest";
import {
  admin,
  alice,
  documentOf,
  type IngestUnderTest,
  ingestTest,
  refusal,
} from "../testing/ingest-under-test.ts";

const test = ingestTest;

function send<T = WriteResult>(
  ingest: IngestUnderTest,
  name: MaintenanceCommandName,
  payload: Record<string, unknown>,
): Promise<T> {
  return ingest.send<T>(name, payload);
}

async function create(ingest: IngestUnderTest, slot: string, content: string, scope = "team") {
  return ingest.send("memory.create", {
    principal: alice,
    memory: { slot, content, kind: "fact", scope, tags: [slot] },
  });
}

describe("ingest: maintenance commands", () => {
  test("consolidate: a dry run plans, its token records one memory that supersedes the group", async ({
    ingest,
  }) => {
    const a = await create(ingest, "deploy-a", "Deploys run from the main branch every Monday.");
    const b = await create(ingest, "deploy-b", "Deploys need a green build on main first.");
    const members = [
      { id: a.id, expectedVersion: a.version },
      { id: b.id, expectedVersion: b.version },
    ];
    const command = {
      principal: admin,
      members,
      consolidated: {
        slot: "deploy-a",
        kind: "fact",
        content: "Deploys run from main every Monday after a green build.",
        aliases: ["deploy-b"],
      },
      level: 2,
      reason: "consolidated by a test",
      runId: randomUUID(),
    };
    const plan = await send<PlanResult>(ingest, "memory.consolidate", { ...command, dryRun: true });
    expect(plan.plan.map((p) => [p.id, p.action])).toEqual([
      [a.id, "supersede"],
      [b.id, "supersede"],
    ]);
    // The dry run changed nothing.
    expect((await documentOf(ingest, a.id)).status).toBe("active");
    expect((await refusal(send(ingest, "memory.consolidate", command))).code).toBe("precondition_required");

    const written = await send(ingest, "memory.consolidate", { ...command, token: plan.token });
    expect(written.affected?.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    const consolidated = await documentOf(ingest, written.id);
    expect(consolidated).toMatchObject({
      status: "active",
      slot: "deploy-a",
      consolidatedFrom: [a.id, b.id],
      level: 2,
      scope: "team",
    });
    for (const id of [a.id, b.id]) {
      expect(await documentOf(ingest, id)).toMatchObject({ status: "superseded", supersededBy: written.id });
    }
  });

  test("consolidate refuses members of different scopes and a token for versions that moved", async ({
    ingest,
  }) => {
    const a = await create(ingest, "x-a", "Alpha text about caching layers.");
    const b = await create(ingest, "x-b", "Beta text about caching layers.", "agent");
    // Members at their first version, consolidated into the slot `x`.
    const consolidation = (members: WriteResult[], content: string) => ({
      principal: admin,
      members: members.map(({ id }) => ({ id, expectedVersion: 1 })),
      consolidated: { slot: "x", content },
      level: 2,
    });
    const mixed = await refusal(
      send(ingest, "memory.consolidate", { ...consolidation([a, b], "Caching layers."), dryRun: true }),
    );
    expect(mixed.code).toBe("validation_failed");

    const c = await create(ingest, "x-c", "Gamma text about caching layers.");
    const command = consolidation([a, c], "Caching layers, consolidated.");
    const plan = await send<PlanResult>(ingest, "memory.consolidate", { ...command, dryRun: true });
    await ingest.send("memory.update", {
      principal: alice,
      id: c.id,
      expectedVersion: 1,
      changes: { content: "Gamma text about caching layers, revised." },
    });
    const stale = await refusal(
      send(ingest, "memory.consolidate", {
        ...command,
        members: [command.members[0], { id: c.id, expectedVersion: 2 }],
        token: plan.token,
      }),
    );
    expect(stale.code).toBe("token_invalid");
    expect((await refusal(send(ingest, "memory.consolidate", { ...command, token: plan.token }))).code).toBe(
      "version_conflict",
    );
  });

  test("forget archives each memory with the reasons that decided it; agents may not", async ({ ingest }) => {
    const a = await create(ingest, "old-a", "An old note nobody reads.");
    const command = {
      principal: admin,
      items: [{ id: a.id, expectedVersion: 1, reasons: ["age 40 days ≥ 30", "no positive feedback"] }],
      runId: randomUUID(),
    };
    expect(
      (await refusal(send(ingest, "memory.forget", { ...command, principal: alice, dryRun: true }))).code,
    ).toBe("forbidden");
    const plan = await send<PlanResult>(ingest, "memory.forget", { ...command, dryRun: true });
    expect(plan.plan).toEqual([{ id: a.id, action: "archive", version: 1, slot: "old-a" }]);
    await send(ingest, "memory.forget", { ...command, token: plan.token });
    expect((await documentOf(ingest, a.id)).status).toBe("archived");
    const events = await ingest.store.readStream(streamIdFor("memory", a.id));
    expect(events.at(-1)).toMatchObject({
      type: "memory.archived",
      data: {
        reason: `forgotten (maintenance run ${command.runId}): age 40 days ≥ 30; no positive feedback`,
      },
    });
  });

  test("purge destroys the seal of a deleted memory, records it, and is final", async ({ ingest }) => {
    const a = await create(ingest, "to-purge", "Personal details that must go.");
    const deletePlan = await ingest.plan("memory.delete", { principal: alice, id: a.id, expectedVersion: 1 });
    await ingest.send("memory.delete", {
      principal: alice,
      id: a.id,
      expectedVersion: 1,
      token: deletePlan.token,
    });
    const keys = createMemorySealStore(ingest.pool);
    await keys.ensureSeals("acme", [a.id]);

    const live = await create(ingest, "still-here", "Active memories cannot be purged.");
    expect(
      (
        await refusal(
          send(ingest, "memory.purge", {
            principal: admin,
            items: [{ id: live.id, expectedVersion: 1 }],
            dryRun: true,
          }),
        )
      ).code,
    ).toBe("illegal_transition");

    const command = { principal: admin, items: [{ id: a.id, expectedVersion: 2 }], reason: "retention" };
    expect(
      (await refusal(send(ingest, "memory.purge", { ...command, principal: alice, dryRun: true }))).code,
    ).toBe("forbidden");
    const plan = await send<PlanResult>(ingest, "memory.purge", { ...command, dryRun: true });
    expect(plan.plan).toEqual([{ id: a.id, action: "purge", version: 2, slot: "to-purge" }]);
    expect((await keys.sealsFor([a.id])).get(a.id)?.state).toBe("active");
    await send(ingest, "memory.purge", { ...command, token: plan.token });

    expect((await keys.sealsFor([a.id])).get(a.id)?.state).toBe("shredded");
    const doc = await documentOf(ingest, a.id);
    expect(doc).toMatchObject({ status: "deleted", content: "", title: "", entities: [] });
    expect(doc.purgedAt).toEqual(expect.any(String));
    const restore = await refusal(
      ingest.send("memory.restore", { principal: admin, id: a.id, expectedVersion: 3, reason: null }),
    );
    expect(restore.code).toBe("illegal_transition");
  });

  test("a run record goes to its own maintenance stream; only admins record runs", async ({ ingest }) => {
    const runId = randomUUID();
    const run = {
      runId,
      job: "verification",
      mode: "dry_run",
      trigger: "manual",
      requestedBy: "ada",
      startedAt: "2026-01-01T00:00:00.000Z",
      finishedAt: "2026-01-01T00:00:01.000Z",
      outcome: "ok",
      examined: 3,
      actions: [],
      truncatedActions: 0,
      params: { reviewDays: 180 },
      error: null,
      position: null,
    };
    expect((await refusal(send(ingest, "maintenance.record_run", { principal: alice, run }))).code).toBe(
      "forbidden",
    );
    const written = await send(ingest, "maintenance.record_run", {
      principal: admin,
      run,
      idempotencyKey: runId,
    });
    expect(written.id).toBe(runId);
    const again = await send(ingest, "maintenance.record_run", {
      principal: admin,
      run,
      idempotencyKey: runId,
    });
    expect(again).toEqual({ ...written, replayed: true });
    const events = await ingest.store.readStream(streamIdFor("maintenance", runId));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      streamType: "maintenance",
      type: "maintenance.run_recorded",
      data: { ...run, tenant: "acme" },
      meta: { tenant: "acme", actor: "ada" },
    });
  });
});
