import { MemoryInputSchema } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { importSteps } from "./import-plan.ts";
import { importKeymem } from "./keymem.ts";
import { fixtureText } from "./testing/fixtures.ts";

describe("importKeymem", () => {
  const plan = importKeymem(fixtureText("keymem-graph.json"));
  const item = (id: string) => plan.items.find((i) => i.originalId === id)!;

  it("makes one memory per keymem memory, oldest first, keys from the key graph", () => {
    expect(plan.items.map((i) => i.originalId)).toEqual([
      "0a1b2c3d4e5f",
      "1b2c3d4e5f6a",
      "3d4e5f6a1b2c",
      "2c3d4e5f6a1b",
      "4e5f6a1b2c3d",
    ]);
    for (const i of plan.items) expect(MemoryInputSchema.safeParse(i.memory).success).toBe(true);
    // Strongest link first, then the keys' aliases (the Korean form of "portfolio").
    expect(item("0a1b2c3d4e5f").memory.keys).toEqual(["Nexora", "portfolio", "포트폴리오", "investments"]);
    expect(item("1b2c3d4e5f6a").memory.keys).toEqual(["portfolio", "Nexora", "포트폴리오", "investments"]);
    expect(item("4e5f6a1b2c3d").memory).toMatchObject({
      keys: ["茶", "tea"],
      slot: expect.stringMatching(/^茶-用户每天下午喝乌龙茶-[0-9a-f]{8}$/),
      content: "用户每天下午喝乌龙茶",
    });
    expect(item("0a1b2c3d4e5f")).toMatchObject({
      agent: "claude-code",
      status: "superseded",
      memory: {
        source: "keymem:0a1b2c3d4e5f",
        project: null,
        validFrom: "2025-06-27T04:53:20.250Z",
        kind: "fact",
      },
    });
  });

  it("keeps supersession, namespaces, expiry and links", () => {
    const now = item("1b2c3d4e5f6a");
    const pnpm = item("2c3d4e5f6a1b");
    const stocks = item("3d4e5f6a1b2c");
    expect(now.successorOf).toEqual({ originalId: "0a1b2c3d4e5f", via: "supersede" });
    expect(now.memory.content).toBe(
      `The Nexora portfolio now holds 60% bonds 📈\n\nRelated: [[${pnpm.memory.slot}]]\nContradicts: [[${stocks.memory.slot}]]`,
    );
    expect(now.links).toEqual([pnpm.memory.slot, stocks.memory.slot]);
    expect(pnpm).toMatchObject({ invalidAt: "2030-01-01T00:00:00.000Z", memory: { project: "cairn" } });
    expect(importSteps(plan).map((s) => `${s.action} ${s.item.originalId}`)).toEqual([
      "create 0a1b2c3d4e5f",
      "supersede 1b2c3d4e5f6a",
      "create 3d4e5f6a1b2c",
      "create 2c3d4e5f6a1b",
      "invalidate 2c3d4e5f6a1b",
      "create 4e5f6a1b2c3d",
    ]);
  });

  it("reports what it passed over", () => {
    expect(plan.problems).toEqual([
      { where: "graph.json:5f6a1b2c3d4e", message: "a memory without content; skipped" },
      {
        where: "graph.json:links[7]",
        message: "a link between a key and a memory that are not both in the file; skipped",
      },
      { where: "graph.json:2c3d4e5f6a1b", message: 'related memory "ffffffffffff" is not in the file' },
    ]);
  });

  it("is deterministic and refuses what is not a keymem graph", () => {
    expect(importKeymem(fixtureText("keymem-graph.json"))).toEqual(plan);
    expect(importKeymem({ entities: [] }).problems[0]?.message).toMatch(/^not a keymem graph/);
  });

  it("cuts keys to the contract's limit and says so", () => {
    const keys = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`k${i}`, { concept: `concept ${i}`, aliases: [] }]),
    );
    const links = Array.from({ length: 40 }, (_, i) => ({ key_id: `k${i}`, memory_id: "m", weight: 1 }));
    const result = importKeymem({ keys, memories: { m: { content: "many keys" } }, links });
    expect(result.items[0]?.memory.keys).toHaveLength(32);
    expect(result.problems).toEqual([
      { where: "graph.json:m", message: expect.stringMatching(/^8 keys over the limit of 32 dropped: /) },
    ]);
  });
});
