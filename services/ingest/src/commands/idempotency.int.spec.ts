// Retries with an idempotency key, as a client after a timeout sends them: the same key and
// body answer exactly the first answer and write nothing; the same key with another body (or
// from another sender) is `idempotency_conflict`; and both hold after ingest restarts. On the
// bus a retry's answer says it is one (`replayed`); the gateway drops that mark.
import type { WriteResult } from "@cairn/contracts";
import { describe, expect } from "vitest";
import {
  admin,
  alice,
  bob,
  type IngestUnderTest,
  ingestTest,
  outsider,
  refusedWith,
  reviewer,
  startIngestUnderTest,
} from "../testing/ingest-under-test.ts";

const test = ingestTest;

const logLength = async (ingest: IngestUnderTest) =>
  (await ingest.store.readAll({ after: 0, limit: 1000 })).length;

/** The first answer, as a retry gets it back. */
const replayOf = (first: WriteResult) => ({ ...first, replayed: true });

/** Sends the command twice more; both answers must be the first one, and nothing is written. */
async function expectRetriesAnswerTheFirst(
  ingest: IngestUnderTest,
  send: () => Promise<WriteResult>,
): Promise<WriteResult> {
  const first = await send();
  expect(first.replayed).toBeUndefined();
  const written = await logLength(ingest);
  expect(await send()).toEqual(replayOf(first));
  expect(await send()).toEqual(replayOf(first));
  expect(await logLength(ingest)).toBe(written);
  return first;
}

describe("idempotent retries", () => {
  test("the same key and body answer exactly the first answer and write nothing, for every kind of write", async ({
    ingest,
  }) => {
    const create = (key: string, slot: string, content: string, extra: Record<string, unknown> = {}) =>
      ingest.send("memory.create", {
        principal: alice,
        idempotencyKey: key,
        memory: { slot, content, keys: ["release"], ...extra },
      });
    const m = await expectRetriesAnswerTheFirst(ingest, () => create("c-1", "release", "Tag, then push."));
    // Fields in another order and defaults spelt out are the same body.
    expect(
      await ingest.send("memory.create", {
        idempotencyKey: "c-1",
        memory: { keys: ["release"], content: "Tag, then push.", slot: "release", kind: "note", tags: [] },
        principal: alice,
      }),
    ).toEqual(replayOf(m));

    await expectRetriesAnswerTheFirst(ingest, () =>
      ingest.send("memory.update", {
        principal: alice,
        idempotencyKey: "u-1",
        id: m.id,
        expectedVersion: 1,
        changes: { content: "Tag, then push, then announce.", keys: ["release", "announce"] },
      }),
    );

    // A destructive command: a fresh dry run gives another token for the same plan; the retry
    // with it is the same command and answers the first write.
    const replacement = { slot: "release", content: "Release with the script." };
    const supersede = async () => {
      const payload = { principal: alice, id: m.id, expectedVersion: 2, replacement, reason: "scripted" };
      const plan = await ingest.plan("memory.supersede", payload).catch(() => undefined);
      return ingest.send("memory.supersede", {
        ...payload,
        idempotencyKey: "s-1",
        token: plan?.token ?? "no-plan",
      });
    };
    const superseded = await expectRetriesAnswerTheFirst(ingest, supersede);
    expect(superseded.affected).toEqual([expect.objectContaining({ id: m.id, version: 3 })]);

    await expectRetriesAnswerTheFirst(ingest, () =>
      ingest.send("feedback.give", {
        principal: bob,
        idempotencyKey: "f-1",
        memoryId: superseded.id,
        useful: true,
      }),
    );
    await expectRetriesAnswerTheFirst(ingest, () =>
      ingest.send("recalls.record", {
        principal: bob,
        idempotencyKey: "r-1",
        memoryIds: [superseded.id],
        query: "how do we release",
      }),
    );
    await expectRetriesAnswerTheFirst(ingest, () =>
      ingest.send("tenant.change_settings", {
        principal: admin,
        idempotencyKey: "t-1",
        settings: { skipPatterns: ["^thanks$"] },
      }),
    );
    const proposal = await ingest.send("proposal.submit", {
      principal: bob,
      proposal: { slot: "deploys", content: "Deploy on Tuesdays." },
    });
    const promoted = await expectRetriesAnswerTheFirst(ingest, () =>
      ingest.send("proposal.promote", {
        principal: reviewer,
        idempotencyKey: "p-1",
        id: proposal.id,
        expectedVersion: 1,
      }),
    );
    expect(promoted.affected).toEqual([expect.objectContaining({ id: proposal.id, version: 2 })]);
  });

  test("the same key with another body, or from another agent, is an idempotency conflict and writes nothing", async ({
    ingest,
  }) => {
    const payload = { principal: alice, idempotencyKey: "k-1", memory: { slot: "a", content: "First." } };
    const first = await ingest.send("memory.create", payload);
    const written = await logLength(ingest);
    const conflict = await refusedWith(
      "idempotency_conflict",
      ingest.send("memory.create", { ...payload, memory: { slot: "a", content: "Second." } }),
    );
    expect(conflict.hint).toMatch(/new idempotency key/);
    expect(conflict.details).toMatchObject({ command: "memory.create", position: first.position });
    await refusedWith("idempotency_conflict", ingest.send("memory.create", { ...payload, principal: bob }));
    expect(await logLength(ingest)).toBe(written);
    // The key belongs to a tenant and a command name: elsewhere it is another command.
    await ingest.send("memory.create", { ...payload, principal: outsider });
    await ingest.send("proposal.submit", {
      principal: alice,
      idempotencyKey: "k-1",
      proposal: payload.memory,
    });
    expect(await logLength(ingest)).toBe(written + 2);
    // The first body still answers the first answer.
    expect(await ingest.send("memory.create", payload)).toEqual(replayOf(first));
  });

  test("of two attempts racing with one key, one writes and the other answers its result or a conflict", async ({
    ingest,
  }) => {
    const payload = { principal: alice, idempotencyKey: "race", memory: { slot: "race", content: "Once." } };
    const same = await Promise.all([
      ingest.send("memory.create", payload),
      ingest.send("memory.create", payload),
      ingest.send("memory.create", payload),
    ]);
    // One wrote; the others answer its result (a racing one without the replay mark).
    expect(new Set(same.map(({ replayed: _replayed, ...r }) => JSON.stringify(r))).size).toBe(1);
    const other = { ...payload, idempotencyKey: "race-2" };
    const outcomes = await Promise.allSettled([
      ingest.send("memory.create", { ...other, memory: { slot: "race-2", content: "One." } }),
      ingest.send("memory.create", { ...other, memory: { slot: "race-2", content: "Two." } }),
    ]);
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    expect(refused.map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(["idempotency_conflict"]);
    expect(await logLength(ingest)).toBe(2);
  });

  test("after ingest restarts, a retry still answers the first answer and a changed body is still refused", async ({
    databaseUrl,
    nats,
  }) => {
    const payload = {
      principal: alice,
      idempotencyKey: "before-restart",
      memory: { slot: "restart", content: "Written before the restart.", keys: ["restarts"] },
    };
    const before = await startIngestUnderTest(databaseUrl, nats.url);
    let first: WriteResult;
    try {
      first = await before.send("memory.create", payload);
    } finally {
      await before.stop();
    }
    const after = await startIngestUnderTest(databaseUrl, nats.url);
    try {
      expect(await after.send("memory.create", payload)).toEqual(replayOf(first));
      await refusedWith(
        "idempotency_conflict",
        after.send("memory.create", { ...payload, memory: { slot: "restart", content: "Other." } }),
      );
      expect(await logLength(after)).toBe(2);
    } finally {
      await after.stop();
    }
  });
});
