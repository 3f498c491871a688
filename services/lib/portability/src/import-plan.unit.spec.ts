import { limits } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { type DraftItem, finishImportPlan, type ImportProblem, importSteps } from "./import-plan.ts";

function draft(
  ref: string,
  overrides: Partial<DraftItem> = {},
  memory: Partial<DraftItem["memory"]> = {},
): DraftItem {
  return {
    sourceRef: ref,
    tier: "memory",
    originalId: ref,
    links: [],
    ...overrides,
    memory: {
      slot: ref,
      kind: "note",
      content: `content of ${ref}`,
      tags: [],
      aliases: [],
      keys: [],
      scope: "team",
      project: null,
      source: null,
      validFrom: null,
      ...memory,
    },
  };
}

function finish(drafts: DraftItem[]) {
  const problems: ImportProblem[] = [];
  return finishImportPlan(drafts, problems);
}

describe("finishImportPlan", () => {
  it("skips content over the limit and empty content, never cutting it", () => {
    const plan = finish([
      draft("long", {}, { content: "x".repeat(limits.contentMaxChars + 1) }),
      draft("fits", {}, { content: "y".repeat(limits.contentMaxChars) }),
      draft("empty", {}, { content: " \n\u0000 " }),
    ]);
    expect(plan.items.map((i) => i.sourceRef)).toEqual(["fits"]);
    expect(plan.items[0]?.memory.content).toHaveLength(limits.contentMaxChars);
    expect(plan.problems).toEqual([
      {
        where: "long",
        message: "content is 32001 characters, over the limit of 32000; skipped (content is never cut)",
      },
      { where: "empty", message: "content: removed 1 control character (U+0000)" },
      { where: "empty", message: "no content; skipped" },
    ]);
  });

  it("cleans labels to the contract's limits and reports each change", () => {
    const plan = finish([
      draft(
        "labels",
        {},
        {
          title: `${"t".repeat(250)}`,
          tags: [...Array.from({ length: 40 }, (_, i) => `Tag${i}`)],
          keys: ["k".repeat(70)],
          project: "p\u0000roject",
          source: "s".repeat(600),
        },
      ),
    ]);
    const memory = plan.items[0]!.memory;
    expect(memory.title).toHaveLength(limits.titleMaxChars);
    expect(memory.tags).toHaveLength(limits.maxTags);
    expect(memory.tags[0]).toBe("tag0");
    expect(memory.keys).toEqual(["k".repeat(64)]);
    expect(memory.project).toBe("project");
    expect(memory.source).toHaveLength(limits.sourceMaxChars);
    expect(plan.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^title ".*" cut to 200 characters$/),
      expect.stringMatching(/^project: removed 1 control character/),
      expect.stringMatching(/^source ".*" cut to 500 characters$/),
      expect.stringMatching(/^8 tags over the limit of 32 dropped: "tag32", /),
      expect.stringMatching(/^key ".*" cut to 64 characters$/),
    ]);
  });

  it("drops a second copy of the same content, as ingest would", () => {
    const plan = finish([
      draft("a", {}, { content: "Prefers vegetarian restaurants" }),
      draft("b", {}, { content: "prefers   VEGETARIAN restaurants" }),
      draft("c", { status: "archived" }, { content: "Prefers vegetarian restaurants" }),
      draft("d", {}, { content: "Prefers vegetarian restaurants", scope: "agent" }),
    ]);
    expect(plan.items.map((i) => i.sourceRef)).toEqual(["a", "c", "d"]);
    expect(plan.problems).toEqual([
      { where: "b", message: "same content as a; ingest would refuse it as duplicate_content; skipped" },
    ]);
  });

  it("keeps only successions it can write", () => {
    const plan = finish([
      draft("loop-a", { successorOf: { originalId: "loop-b", via: "supersede" } }),
      draft("loop-b", { successorOf: { originalId: "loop-a", via: "supersede" } }),
      draft("handoff", { tier: "handoff" }),
      draft("over-handoff", { successorOf: { originalId: "handoff", via: "supersede" } }),
      draft("done", { tier: "handoff", status: "completed" }),
      draft("wrong", { status: "rejected" }),
    ]);
    expect(plan.items.map((i) => [i.sourceRef, i.successorOf?.originalId, i.status])).toEqual([
      ["loop-b", undefined, undefined],
      ["loop-a", "loop-b", undefined],
      ["handoff", undefined, undefined],
      ["over-handoff", undefined, undefined],
      ["done", undefined, "completed"],
      ["wrong", undefined, undefined],
    ]);
    expect(plan.problems.map((p) => `${p.where}: ${p.message}`)).toEqual([
      "wrong: status rejected does not exist for a memory; left at active",
      "over-handoff: supersedes handoff, but only a memory supersedes a memory; written on its own",
      "loop-b: succession loop through loop-a; written on its own",
      "loop-b: is active in the source, but writing its successor leaves it superseded",
    ]);
  });
});

describe("importSteps", () => {
  it("applies a status after the item's successor is written, and at once otherwise", () => {
    const plan = finish([
      draft("old", { status: "deleted" }),
      draft("other", { status: "archived", invalidAt: "2026-01-01T00:00:00.000Z" }),
      draft("new", { successorOf: { originalId: "old", via: "supersede" } }),
    ]);
    expect(importSteps(plan).map((s) => `${s.action} ${s.item.sourceRef}`)).toEqual([
      "create old",
      "create other",
      "set_status other",
      "invalidate other",
      "supersede new",
      "set_status old",
    ]);
  });
});
