import { describe, expect, test } from "vitest";
import { ingestCommandSchemas } from "./commands/ingest-commands.ts";
import { parseRequest } from "./parse-request.ts";
import { CandidatesRequestSchema } from "./queries.ts";
import { KeysRecallRequestSchema } from "./ranking.ts";
import { refusalOf } from "./testing/refusal-of.ts";

const principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };

const create = (payload: unknown) =>
  parseRequest("memory.create", ingestCommandSchemas["memory.create"], payload);
const update = (payload: unknown) =>
  parseRequest("memory.update", ingestCommandSchemas["memory.update"], payload);

describe("parsing requests", () => {
  test("fills defaults", () => {
    const command = create({ principal, memory: { slot: "s", content: "c" } });
    expect(command.memory).toMatchObject({ kind: "note", scope: "team", tags: [], project: null });
  });

  test("unknown fields, limits and other errors have their own codes and name the field", () => {
    expect(refusalOf(() => create({ principal, memory: { slot: "s", content: "c", x: 1 } }))).toMatchObject({
      code: "unknown_field",
      details: { fields: ["memory.x"] },
    });
    expect(
      refusalOf(() =>
        update({
          principal,
          id: "6f1c1b2e-8d5f-4a43-9a57-3c1d1e2f3a4b",
          expectedVersion: 1,
          changes: { title: "t".repeat(201) },
        }),
      ),
    ).toMatchObject({ code: "too_large", details: { field: "changes.title", maximum: 200 } });
    const invalid = refusalOf(() => update({ principal, id: "nope", expectedVersion: 0, changes: {} }));
    expect(invalid.code).toBe("validation_failed");
    expect(invalid.message).toMatch(/id.*expectedVersion/s);
  });

  test("a NUL character in any string of any request is refused by name, other controls pass", () => {
    const id = "6f1c1b2e-8d5f-4a43-9a57-3c1d1e2f3a4b";
    const cases: [string, () => unknown, string][] = [
      [
        "feedback note",
        () =>
          parseRequest("feedback.give", ingestCommandSchemas["feedback.give"], {
            principal,
            memoryId: id,
            useful: true,
            note: "good\u0000",
          }),
        "note",
      ],
      [
        "a search filter",
        () =>
          parseRequest("candidates", CandidatesRequestSchema, {
            principal,
            query: "deploys",
            filters: { tags: ["ok", "a\u0000b"] },
          }),
        "filters.tags[1]",
      ],
      [
        "an agent filter",
        () =>
          parseRequest("candidates", CandidatesRequestSchema, {
            principal,
            query: "deploys",
            filters: { agent: "\u0000" },
          }),
        "filters.agent",
      ],
      [
        "a keys query",
        () => parseRequest("keys.recall", KeysRecallRequestSchema, { principal, query: "x\u0000" }),
        "query",
      ],
      [
        "memory project",
        () => create({ principal, memory: { slot: "s", content: "c", project: "p\u0000" } }),
        "memory.project",
      ],
    ];
    for (const [what, parse, field] of cases) {
      const error = refusalOf(parse);
      expect(error.code, what).toBe("validation_failed");
      expect(error.message, what).toContain(field);
      expect(error.message, what).toContain("NUL");
    }
    const controls = "tab\there, bell\u0007, escape\u001b";
    expect(
      create({ principal, memory: { slot: "s", content: controls, source: controls } }).memory.source,
    ).toBe(controls);
  });
});
