import { MemoryInputSchema } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { importSteps } from "./import-plan.ts";
import { importMem0 } from "./mem0.ts";
import { fixtureText } from "./testing/fixtures.ts";

describe("importMem0, open-source get_all", () => {
  const plan = importMem0(fixtureText("mem0-oss-get-all.json"));

  it("maps each memory, with a slot from its first words and a suffix from its id", () => {
    expect(plan.items.map((i) => i.originalId)).toEqual([
      "0f4b1c9e-5a43-4f54-9d5e-2f1b0f3c8e11",
      "6c0e2f5a-8b9d-4c1e-a3f7-9d2b4e6f8a10",
      "9a7d3b1c-2e4f-4a6b-8c0d-1e3f5a7b9c2d",
    ]);
    for (const item of plan.items) expect(MemoryInputSchema.safeParse(item.memory).success).toBe(true);
    expect(plan.items[0]).toEqual({
      sourceRef: "mem0:0f4b1c9e-5a43-4f54-9d5e-2f1b0f3c8e11",
      tier: "memory",
      memory: {
        slot: expect.stringMatching(/^prefers-vegetarian-restaurants-[0-9a-f]{8}$/),
        kind: "preference",
        content: "Prefers vegetarian restaurants 🥗",
        tags: [],
        aliases: [],
        keys: [],
        scope: "team",
        project: null,
        source: "mem0:0f4b1c9e-5a43-4f54-9d5e-2f1b0f3c8e11",
        validFrom: "2024-07-20T17:12:03.123Z",
      },
      links: [],
      originalId: "0f4b1c9e-5a43-4f54-9d5e-2f1b0f3c8e11",
      agent: "alex",
    });
    expect(plan.items[1]).toMatchObject({
      agent: "travel-bot",
      memory: { kind: "fact", slot: expect.stringMatching(/^用户喜欢在早上喝绿茶-[0-9a-f]{8}$/) },
    });
    expect(plan.items[2]?.memory.content).toBe('Said "never book red-eye flights"  after the trip to Lisbon');
  });

  it("reports repeats, control characters, empty and invalid memories", () => {
    expect(plan.problems.map((p) => `${p.where}: ${p.message}`)).toEqual([
      "mem0:0f4b1c9e-5a43-4f54-9d5e-2f1b0f3c8e11: memory 0f4b1c9e-5a43-4f54-9d5e-2f1b0f3c8e11 is listed twice; the second is skipped",
      "mem0:results[6]: not a mem0 memory (id: Invalid input); skipped",
      "mem0:9a7d3b1c-2e4f-4a6b-8c0d-1e3f5a7b9c2d: content: removed 2 control characters (U+0000, U+0007)",
      "mem0:e5f7a9b1-c3d5-4e7f-8a1b-2c3d4e5f6a7b: no content; skipped",
      "mem0:d2c4e6f8-1a3b-4c5d-9e7f-0a2b4c6d8e1f: same content as mem0:0f4b1c9e-5a43-4f54-9d5e-2f1b0f3c8e11; ingest would refuse it as duplicate_content; skipped",
    ]);
  });

  it("gives the same plan every time, so a second import finds everything already there", () => {
    expect(importMem0(fixtureText("mem0-oss-get-all.json"))).toEqual(plan);
  });
});

describe("importMem0, platform", () => {
  const plan = importMem0(fixtureText("mem0-platform-v3.json"), { sourceName: "export.json" });

  it("reads categories, app, expiry and replacement", () => {
    const [old, moved, food, manager] = plan.items;
    expect(old).toMatchObject({ status: "superseded", memory: { tags: ["travel"], project: "travel-app" } });
    expect(moved).toMatchObject({
      successorOf: { originalId: old?.originalId, via: "supersede" },
      invalidAt: "2024-07-16T00:00:00.000Z",
      memory: {
        tags: ["travel", "user_preferences"],
        slot: expect.stringMatching(/^travel-alex-moved-the-san-francisco-trip-[0-9a-f]{8}$/),
      },
    });
    expect(food?.memory.tags).toEqual([
      "food",
      "this category name is far too long to be a tag in cairn because",
    ]);
    expect(manager).toMatchObject({
      memory: { validFrom: null, content: 'Alex\'s manager is "Sam" (she/her)' },
    });
    expect(manager).not.toHaveProperty("status");
    expect(plan.problems.map((p) => p.message)).toEqual([
      'replaced by "00000000-0000-4000-8000-000000000000", which is not in the export',
      'created_at: "not a date" is not a time; left out',
      'tag "this category name is far too long to be…" cut to 64 characters',
    ]);
    expect(importSteps(plan).map((s) => s.action)).toEqual([
      "create",
      "supersede",
      "invalidate",
      "create",
      "create",
    ]);
  });

  it("uses the given project and scope over the export's", () => {
    const other = importMem0(fixtureText("mem0-platform-v3.json"), { project: "imported", scope: "agent" });
    expect(other.items.every((i) => i.memory.project === "imported" && i.memory.scope === "agent")).toBe(
      true,
    );
  });
});

describe("importMem0, other shapes", () => {
  it("reads a bare list (mem0 1.0) and the TypeScript SDK's camel-case times", () => {
    const plan = importMem0([
      {
        id: "m1",
        memory: "Likes jazz",
        createdAt: "2025-01-01T00:00:00.000Z",
        metadata: { kind: "not-a-kind" },
      },
      { id: 2, memory: "Very long ".repeat(4000) },
    ]);
    expect(plan.items).toHaveLength(1);
    expect(plan.items[0]).toMatchObject({
      originalId: "m1",
      memory: { validFrom: "2025-01-01T00:00:00.000Z", kind: "fact" },
    });
    expect(plan.problems).toEqual([
      {
        where: "mem0:2",
        message: "content is 40000 characters, over the limit of 32000; skipped (content is never cut)",
      },
    ]);
  });

  it("says what it cannot read", () => {
    expect(importMem0("{oops").problems[0]?.message).toMatch(/^not JSON/);
    expect(importMem0({ memories: [] }).problems[0]?.message).toMatch(/^not a mem0 export/);
  });
});
