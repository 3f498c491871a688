import { CairnError } from "@cairn/contracts";
import { describe, expect, test } from "vitest";
import { issuePlanToken, type PlanBinding, parametersDigest, verifyPlanToken } from "./plan-token.ts";

const secret = new TextEncoder().encode("a-test-secret-of-32-characters!!");
const binding: PlanBinding = {
  command: "memory.delete",
  tenant: "acme",
  agent: "alice",
  plan: [{ id: "6f1c1b2e-8d5f-4a43-9a57-3c1d1e2f3a4b", action: "delete", version: 3, slot: "s" }],
  parameters: parametersDigest({ id: "6f1c1b2e-8d5f-4a43-9a57-3c1d1e2f3a4b", reason: "old" }),
};
const now = Date.parse("2026-01-01T00:00:00Z");

function refusedWith(fn: () => void, message: RegExp) {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(CairnError);
  expect((error as CairnError).code).toBe("token_invalid");
  expect((error as CairnError).message).toMatch(message);
}

describe("plan tokens", () => {
  const token = issuePlanToken(secret, binding, now + 60_000);

  test("the same plan, in time, with the same secret is accepted", () => {
    expect(() => verifyPlanToken(secret, token, binding, now)).not.toThrow();
  });

  test("parameter digests ignore key order", () => {
    expect(parametersDigest({ a: 1, b: { c: 2, d: 3 } })).toBe(parametersDigest({ b: { d: 3, c: 2 }, a: 1 }));
  });

  test("a newer version, other parameters, another caller, expiry, another secret or tampering are refused", () => {
    const newer = { ...binding, plan: [{ ...(binding.plan[0] as PlanBinding["plan"][number]), version: 4 }] };
    refusedWith(() => verifyPlanToken(secret, token, newer, now), /plan changed/);
    refusedWith(
      () =>
        verifyPlanToken(secret, token, { ...binding, parameters: parametersDigest({ reason: "x" }) }, now),
      /parameters/,
    );
    refusedWith(
      () => verifyPlanToken(secret, token, { ...binding, agent: "bob" }, now),
      /another command or caller/,
    );
    refusedWith(() => verifyPlanToken(secret, token, binding, now + 120_000), /expired/);
    refusedWith(
      () => verifyPlanToken(new TextEncoder().encode("another"), token, binding, now),
      /not issued/,
    );
    const [body, signature] = token.split(".");
    const forged = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(body as string, "base64url").toString()),
        expiresAt: now * 2,
      }),
    ).toString("base64url");
    refusedWith(() => verifyPlanToken(secret, `${forged}.${signature}`, binding, now), /not issued/);
    refusedWith(() => verifyPlanToken(secret, "garbage", binding, now), /malformed/);
  });
});
