import { refusalOf } from "@cairn/contracts/testing";
import { describe, expect, test } from "vitest";
import { refuseSecrets } from "./refuse-secrets.ts";

const principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };

describe("refusing secrets", () => {
  test("a secret anywhere but the principal and token is refused without echoing it", () => {
    const secret = `ghp_${"x1".repeat(18)}`;
    const error = refusalOf(() => refuseSecrets({ principal, reason: `leaked ${secret}` }));
    expect(error.code).toBe("secret_detected");
    expect(error.details).toEqual({ field: "reason", kind: "github_token", start: 7, end: 47 });
    expect(JSON.stringify(error.toBody())).not.toContain(secret);
    expect(() => refuseSecrets({ principal, token: secret })).not.toThrow();
  });
});
