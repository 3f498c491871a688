// Text in every field of every write, as an attacker sends it: a NUL character is refused
// with a validation error that names the field (never a 500 from Postgres at the append), and
// other control characters are stored as they were sent.
import { describe, expect } from "vitest";
import { admin, alice, documentOf, ingestTest, refusedWith } from "../testing/ingest-under-test.ts";

const test = ingestTest;

describe("text fields of writes", () => {
  test("a NUL character in any field is refused by name and nothing is written", async ({ ingest }) => {
    const m = await ingest.send("memory.create", {
      principal: alice,
      memory: { slot: "m", content: "Fine." },
    });
    const cases: [string, string, Record<string, unknown>][] = [
      ["memory.create", "memory.project", { memory: { slot: "a", content: "c", project: "p\u0000" } }],
      ["memory.create", "memory.source", { memory: { slot: "a", content: "c", source: "\u0000" } }],
      ["proposal.submit", "proposal.source", { proposal: { slot: "a", content: "c", source: "s\u0000" } }],
      ["handoff.open", "handoff.project", { handoff: { slot: "a", content: "c", project: "\u0000x" } }],
      ["feedback.give", "note", { memoryId: m.id, useful: false, note: "stale\u0000" }],
      ["memory.archive", "reason", { id: m.id, expectedVersion: 1, reason: "old\u0000" }],
      ["recalls.record", "query", { memoryIds: [m.id], query: "q\u0000" }],
      ["memory.create", "correlationId", { correlationId: "c\u0000", memory: { slot: "b", content: "d" } }],
    ];
    for (const [name, field, fields] of cases) {
      const error = await refusedWith(
        "validation_failed",
        ingest.send(name as never, { principal: alice, ...fields }),
      );
      expect(error.message, name).toContain(field);
      expect(error.message, name).toContain("NUL");
    }
    await refusedWith(
      "validation_failed",
      ingest.send("tenant.change_settings", { principal: admin, settings: { synonyms: [["a\u0000", "b"]] } }),
    );
    expect(await ingest.store.readAll({ after: 0, limit: 100 })).toHaveLength(1);
  });

  test("other control characters are stored as sent", async ({ ingest }) => {
    const odd = "bell\u0007 escape\u001b[31m tab\t del\u007f";
    const written = await ingest.send("memory.create", {
      principal: alice,
      memory: {
        slot: "odd",
        content: `Content ${odd}`,
        title: `Title ${odd}`,
        project: odd,
        source: odd,
        tags: [odd],
      },
    });
    const doc = await documentOf(ingest, written.id);
    expect(doc).toMatchObject({
      content: `Content ${odd}`,
      title: `Title ${odd}`,
      project: odd,
      source: odd,
    });
    await ingest.send("feedback.give", { principal: alice, memoryId: written.id, useful: true, note: odd });
  });
});
