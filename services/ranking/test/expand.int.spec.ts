// Query expansion against the real service: co-occurrence from projected memories, synonyms
// and skip rules from tenant settings.
import { randomUUID } from "node:crypto";
import { rankingRpcs } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { rankingTest, recorded } from "./ranking-harness.ts";

const test = rankingTest();

describe("ranking.expand", () => {
  test("adds entities that co-occur with the query's entities, and synonyms", async ({ ranking: h }) => {
    const product = (text: string) => ({ text, type: "product" as const });
    await h.publish(
      recorded({ id: randomUUID(), content: "A", entities: [product("Python"), product("Django")] }),
    );
    await h.publish(
      recorded({ id: randomUUID(), content: "B", entities: [product("Python"), product("Django")] }),
    );
    await h.publish(
      recorded({ id: randomUUID(), content: "C", entities: [product("Python"), product("NumPy")] }),
    );
    await h.publish(
      recorded({ id: randomUUID(), content: "D", entities: [product("Rust"), product("Tokio")] }),
    );
    const position = await h.publish({
      type: "tenant.settings_changed",
      streamId: `tenant-${h.tenant}`,
      data: { synonyms: [["py", "python"]] },
    });
    const reply = await h.request(rankingRpcs.expand, {
      query: "which Python web framework do we use?",
      afterPosition: position,
    });
    expect(reply.skip).toBeNull();
    expect(reply.terms).toEqual(["py", "Django"]);
    expect(reply.expansions[1]).toMatchObject({ source: "cooccurrence", from: "Python" });

    const synonyms = await h.request(rankingRpcs.expand, { query: "py packaging" });
    expect(synonyms.terms).toEqual(["python"]);
  });

  test("a deleted memory no longer counts for co-occurrence", async ({ ranking: h }) => {
    const product = (text: string) => ({ text, type: "product" as const });
    const a = randomUUID();
    await h.publish(recorded({ id: a, content: "A", entities: [product("Kafka"), product("Zookeeper")] }));
    let position = await h.publish(
      recorded({ id: randomUUID(), content: "B", entities: [product("Kafka"), product("Zookeeper")] }),
    );
    const before = await h.request(rankingRpcs.expand, {
      query: "kafka",
      afterPosition: position,
    });
    expect(before.terms).toEqual(["Zookeeper"]);
    position = await h.publish({ type: "memory.deleted", streamId: `memory-${a}`, data: { reason: null } });
    const after = await h.request(rankingRpcs.expand, {
      query: "kafka",
      afterPosition: position,
    });
    expect(after.terms).toEqual([]);
  });

  test("skips trivial queries and everything under a workflow lock", async ({ ranking: h }) => {
    expect((await h.request(rankingRpcs.expand, { query: "好的" })).skip).toMatchObject({
      reason: "skip_pattern",
    });
    const position = await h.publish({
      type: "tenant.settings_changed",
      streamId: `tenant-${h.tenant}`,
      data: {
        workflowLock: { reason: "deploy", expiresAt: new Date(h.clock.now.getTime() + 60_000).toISOString() },
      },
    });
    const locked = await h.request(rankingRpcs.expand, {
      query: "what is our deploy process",
      afterPosition: position,
    });
    expect(locked).toMatchObject({ skip: { reason: "workflow_lock" }, terms: [] });
  });
});
