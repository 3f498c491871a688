import { CairnError } from "@cairn/contracts";
import { describe, expect, test } from "vitest";
import { parseCommand, refuseSecrets } from "./parse-command.ts";

const principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };

function refusal(fn: () => unknown): CairnError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("parsing commands", () => {
  test("fills defaults", () => {
    const command = parseCommand("memory.create", { principal, memory: { slot: "s", content: "c" } });
    expect(command.memory).toMatchObject({ kind: "note", scope: "team", tags: [], project: null });
  });

  test("unknown fields, limits and other errors have their own codes and name the field", () => {
    expect(
      refusal(() => parseCommand("memory.create", { principal, memory: { slot: "s", content: "c", x: 1 } })),
    ).toMatchObject({
      code: "unknown_field",
      details: { fields: ["memory.x"] },
    });
    expect(
      refusal(() =>
        parseCommand("memory.update", {
          principal,
          id: "6f1c1b2e-8d5f-4a43-9a57-3c1d1e2f3a4b",
          expectedVersion: 1,
          changes: { title: "t".repeat(201) },
        }),
      ),
    ).toMatchObject({ code: "too_large", details: { field: "changes.title", maximum: 200 } });
    const invalid = refusal(() =>
      parseCommand("memory.update", { principal, id: "nope", expectedVersion: 0, changes: {} }),
    );
    expect(invalid.code).toBe("validation_failed");
    expect(invalid.message).toMatch(/id.*expectedVersion/s);
  });

  test("a secret anywhere but the principal and token is refused without echoing it", () => {
    const secret = `ghp_${"x1".repeat(18)}`;
    const error = refusal(() => refuseSecrets({ principal, reason: `leaked ${secret}` }));
    expect(error.code).toBe("secret_detected");
    expect(error.details).toEqual({ field: "reason", kind: "github_token", start: 7, end: 47 });
    expect(JSON.stringify(error.toBody())).not.toContain(secret);
    expect(() => refuseSecrets({ principal, token: secret })).not.toThrow();
  });
});
