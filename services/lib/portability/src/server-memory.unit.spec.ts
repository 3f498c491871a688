import { MemoryInputSchema } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { importServerMemory } from "./server-memory.ts";
import { fixtureText } from "./testing/fixtures.ts";

describe("importServerMemory", () => {
  const plan = importServerMemory(fixtureText("server-memory.jsonl"));
  const item = (name: string) => plan.items.find((i) => i.originalId === name)!;

  it("makes one memory per entity, relations written as links in the from-entity's content", () => {
    expect(plan.items.map((i) => [i.originalId, i.memory.slot])).toEqual([
      ["John_Smith", "john-smith"],
      ["Anthropic", "anthropic"],
      ["张伟", "张伟"],
      ["John Smith", expect.stringMatching(/^john-smith-[0-9a-f]{8}$/)],
      ["Cairn rollout", "cairn-rollout"],
    ]);
    for (const i of plan.items) expect(MemoryInputSchema.safeParse(i.memory).success).toBe(true);
    expect(item("John_Smith")).toEqual({
      sourceRef: "memory.jsonl:1",
      tier: "memory",
      memory: {
        slot: "john-smith",
        kind: "fact",
        content: [
          "John_Smith (person)",
          "- Speaks fluent Spanish",
          "- Graduated in 2019",
          "- Prefers morning meetings",
          "- Plays chess on Sundays",
          "- John_Smith works_at [[anthropic|Anthropic]]",
          "- John_Smith mentors [[张伟]]",
        ].join("\n"),
        title: "John_Smith",
        tags: [],
        aliases: [],
        keys: ["John_Smith", "person"],
        scope: "team",
        project: null,
        source: "server-memory:John_Smith",
        validFrom: null,
      },
      links: ["anthropic", "张伟"],
      originalId: "John_Smith",
    });
    expect(item("张伟").memory.content).toBe(
      '张伟 (person)\n- 在上海工作\n- 喜欢"乌龙茶"\n- 张伟 consults_for [[acme-corp|Acme Corp]]',
    );
    expect(item("Cairn rollout").memory).toMatchObject({
      kind: "decision",
      content: "Cairn rollout (decision)\n- Ship the team deployment first\n- Line one\n  line two",
    });
  });

  it("reports every line it could not use and every merge", () => {
    expect(plan.problems.map((p) => `${p.where}: ${p.message}`)).toEqual([
      expect.stringMatching(/^memory\.jsonl:12: not JSON \(.*\); skipped$/),
      'memory.jsonl:13: type "observation" is neither entity nor relation; skipped',
      expect.stringMatching(/^memory\.jsonl:14: not JSON \(Bad control character.*\); skipped$/),
      'memory.jsonl:5: entity "John_Smith" is already on memory.jsonl:1; observations merged',
      "memory.jsonl:5: 1 repeated observation written once",
      "memory.jsonl:9: repeated relation written once",
      expect.stringMatching(
        /^memory\.jsonl:4: slot john-smith is already used by another record of this import; named john-smith-[0-9a-f]{8}$/,
      ),
      'memory.jsonl:10: relation to "Acme [Corp]", which is not an entity of the file',
      'memory.jsonl:11: relation from "Nobody", which is not an entity of the file; skipped',
      "memory.jsonl:1: content: removed 1 control character (U+0000)",
    ]);
  });

  it("reads read_graph's single object the same way", () => {
    const lines = fixtureText("server-memory.jsonl")
      .split("\n")
      .flatMap((l) => {
        try {
          return [JSON.parse(l) as { type: string }];
        } catch {
          return [];
        }
      });
    const graph = {
      entities: lines.filter((l) => l.type === "entity").map(({ type, ...e }) => e),
      relations: lines.filter((l) => l.type === "relation").map(({ type, ...r }) => r),
    };
    const fromGraph = importServerMemory(JSON.stringify(graph, null, 2));
    expect(fromGraph.items.map((i) => i.memory)).toEqual(plan.items.map((i) => i.memory));
    expect(fromGraph.items[0]?.sourceRef).toBe("memory.jsonl:entities[0]");
  });

  it("is deterministic, and skips an entity too large to store whole", () => {
    expect(importServerMemory(fixtureText("server-memory.jsonl"))).toEqual(plan);
    const big = JSON.stringify({
      type: "entity",
      name: "Big",
      entityType: "log",
      observations: ["x".repeat(33_000)],
    });
    const result = importServerMemory(big);
    expect(result.items).toEqual([]);
    expect(result.problems[0]?.message).toMatch(/over the limit of 32000; skipped \(content is never cut\)$/);
  });
});
