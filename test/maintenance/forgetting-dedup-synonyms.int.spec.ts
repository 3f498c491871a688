// Forgetting, dedup and synonym discovery on real services: each dry run changes nothing and
// says what it would do; each applied run produces the events it announced.

import { call } from "@cairn/bus";
import { searchRpcs, streamIdFor } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { admin, alice, cairnTest, dayMs } from "./maintenance-harness.ts";

const test = cairnTest();

describe("maintenance: forgetting", () => {
  test("archives unused memories with the dimensions that decided it, never one with positive feedback or depth", async ({
    cairn,
  }) => {
    const plain = await cairn.create({
      slot: "old-standup-note",
      kind: "note",
      content: "The standup moved to the small room once.",
    });
    const liked = await cairn.create({
      slot: "useful-note",
      kind: "note",
      content: "The staging database resets every Sunday night.",
    });
    const deep = await cairn.create({
      slot: "deep-note",
      kind: "note",
      content: "Build caches live in the shared bucket.",
    });
    const decision = await cairn.create({
      slot: "old-decision",
      kind: "decision",
      content: "We chose Postgres for the ledger.",
    });
    await cairn.send("feedback.give", { principal: alice, memoryId: liked.id, useful: true, note: null });
    for (let i = 0; i < 3; i += 1) {
      await cairn.send("recalls.record", {
        principal: alice,
        memoryIds: [deep.id],
        viaKey: null,
        query: null,
      });
    }
    await cairn.settle();

    // Young memories are never candidates.
    expect((await cairn.run("forgetting", { params: { maxAttention: 1 } })).actions).toEqual([]);

    cairn.clock.now = new Date(Date.now() + 40 * dayMs);
    const before = await cairn.store.lastCommittedPosition();
    const dry = await cairn.run("forgetting", { params: { maxAttention: 1 } });
    expect(dry.examined).toBe(3);
    expect(dry.actions.map((a) => a.ids[0])).toEqual([plain.id]);
    const reasons = dry.actions[0]?.reasons ?? [];
    expect(reasons[0]).toMatch(/^age 4\d days ≥ 30$/);
    expect(reasons).toContain("no positive feedback");
    expect(reasons.some((r) => /^emotion [\d.]+ ≤ 0.3$/.test(r))).toBe(true);
    expect(reasons.some((r) => /^depth 0 ≤ 0.3$/.test(r))).toBe(true);
    expect(reasons).toContain("never recalled");
    expect((await cairn.logAfter(before)).map((e) => e.type)).toEqual(["maintenance.run_recorded"]);

    const applied = await cairn.run("forgetting", { apply: true, params: { maxAttention: 1 } });
    expect(applied.actions).toMatchObject([{ action: "archive", ids: [plain.id], status: "applied" }]);
    const events = await cairn.store.readStream(streamIdFor("memory", plain.id));
    expect(events.at(-1)).toMatchObject({ type: "memory.archived", meta: { correlationId: applied.runId } });
    expect((events.at(-1)?.data as { reason?: string } | undefined)?.reason).toMatch(
      /^forgotten \(maintenance run .*\): age/,
    );
    await cairn.settle();
    expect((await cairn.get(plain.id)).document.status).toBe("archived");
    for (const kept of [liked, deep, decision])
      expect((await cairn.get(kept.id)).document.status).toBe("active");

    // Even with every other bound opened wide, feedback and depth keep a memory.
    const wide = await cairn.run("forgetting", {
      params: { maxAttention: 1, maxEmotion: 1, kinds: ["note", "decision"], maxDepth: 0.3 },
    });
    expect(wide.actions.map((a) => a.ids[0])).toEqual([decision.id]);
  });
});

describe("maintenance: dedup", () => {
  test("supersedes the weaker of two near-duplicates and leaves others alone", async ({ cairn }) => {
    const older = await cairn.create({
      slot: "pnpm-rule",
      content: "Use pnpm for installs in the monorepo, never npm or yarn.",
    });
    const newer = await cairn.create({
      slot: "pnpm-rule-again",
      content: "Use pnpm for installs in the monorepo; never npm or yarn!",
    });
    const other = await cairn.create({ slot: "node-version", content: "The services run on Node 24 LTS." });
    await cairn.send("recalls.record", {
      principal: alice,
      memoryIds: [newer.id],
      viaKey: null,
      query: null,
    });
    await cairn.settle();

    const dry = await cairn.run("dedup");
    expect(dry.actions).toHaveLength(1);
    expect(dry.actions[0]).toMatchObject({
      action: "supersede",
      ids: [older.id],
      resultId: newer.id,
      status: "planned",
      detail: { by: "text", similarity: 1 },
    });
    expect(dry.actions[0]?.reasons[1]).toBe(`kept ${newer.id}: recalls 1 > 0`);
    expect((await cairn.get(older.id)).document.status).toBe("active");

    const applied = await cairn.run("dedup", { apply: true });
    expect(applied.actions[0]).toMatchObject({ status: "applied", resultId: newer.id });
    await cairn.settle();
    expect((await cairn.get(older.id)).document).toMatchObject({
      status: "superseded",
      supersededBy: newer.id,
    });
    expect((await cairn.get(newer.id)).document.status).toBe("active");
    expect((await cairn.get(other.id)).document.status).toBe("active");
    expect((await cairn.run("dedup", { apply: true })).actions).toEqual([]);
  });
});

const fillers = [
  "autumn",
  "beacon",
  "canyon",
  "dahlia",
  "ember",
  "fjord",
  "glacier",
  "harbor",
  "island",
  "jasmine",
  "kestrel",
  "lagoon",
  "meadow",
  "nectar",
  "orchid",
  "prairie",
  "quartz",
  "raven",
  "summit",
  "tundra",
  "umber",
  "violet",
  "willow",
  "xenon",
  "yarrow",
  "zephyr",
];

describe("maintenance: synonym discovery", () => {
  test("adds terms of high Jaccard co-occurrence to the tenant's synonym table, used by search", async ({
    cairn,
  }) => {
    for (let i = 0; i < 12; i += 1) {
      const a = fillers[(2 * i) % fillers.length];
      const b = fillers[(2 * i + 1) % fillers.length];
      await cairn.create({ slot: `k8s-${i}`, content: `Kubernetes cluster ${a} ${b} ${i}` });
    }
    await cairn.create({ slot: "lonely", content: "The cluster of desks near the window." });
    const dry = await cairn.run("synonyms");
    expect(dry.actions).toEqual([
      expect.objectContaining({
        action: "add_synonyms",
        status: "planned",
        detail: { terms: ["cluster", "kubernetes"] },
      }),
    ]);
    expect(dry.actions[0]?.reasons[0]).toBe("Jaccard co-occurrence 0.92 ≥ 0.5");

    const applied = await cairn.run("synonyms", { apply: true });
    expect(applied.actions[0]?.status).toBe("applied");
    const settings = await cairn.store.readStream(streamIdFor("tenant", "acme"));
    expect(settings.at(-1)).toMatchObject({
      type: "tenant.settings_changed",
      data: { synonyms: [["cluster", "kubernetes"]] },
      meta: { correlationId: applied.runId },
    });
    await cairn.settle();
    const reply = await call(cairn.nc, searchRpcs.candidates, {
      principal: admin,
      query: "kubernetes",
      mode: "lexical",
    });
    expect(reply.synonymsApplied).toContain("cluster");
    // Already in the table: not proposed again.
    expect((await cairn.run("synonyms")).actions).toEqual([]);
  });
});
