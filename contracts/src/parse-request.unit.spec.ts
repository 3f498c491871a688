import { describe, expect, test } from "vitest";
import { ingestCommandSchemas } from "./commands/ingest-commands.ts";
import { parseRequest } from "./parse-request.ts";
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
});
