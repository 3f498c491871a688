import type { Principal, Scope } from "@cairn/contracts";
import { describe, expect, test } from "vitest";
import { canReview, isReviewer } from "./review.ts";
import { canChange, canSee, canWriteScope } from "./visibility.ts";

const agent = (over: Partial<Principal> = {}): Principal => ({
  tenant: "acme",
  agent: "alice",
  role: "agent",
  primary: false,
  ...over,
});
const doc = (scope: Scope, over: { tenant?: string; agent?: string } = {}) => ({
  scope,
  tenant: over.tenant ?? "acme",
  agent: over.agent ?? "bob",
});

describe("visibility", () => {
  test("team memories are the tenant's, private ones their agent's and the primary agent's", () => {
    expect(canSee(doc("team"), agent())).toBe(true);
    expect(canSee(doc("team", { tenant: "globex" }), agent())).toBe(false);
    expect(canSee(doc("agent"), agent())).toBe(false);
    expect(canSee(doc("agent", { agent: "alice" }), agent())).toBe(true);
    expect(canSee(doc("agent"), agent({ primary: true }))).toBe(true);
    expect(canSee(doc("agent", { tenant: "globex" }), agent({ primary: true }))).toBe(false);
    expect(canSee(doc("global", { tenant: "globex" }), agent())).toBe(true);
  });

  test("a global memory is seen by every tenant and changed only by an admin of its own", () => {
    const global = doc("global");
    expect(canChange(global, agent())).toBe(false);
    expect(canChange(global, agent({ role: "admin" }))).toBe(true);
    expect(canChange(doc("global", { tenant: "globex" }), agent({ role: "admin" }))).toBe(false);
    expect(canWriteScope("global", agent())).toBe(false);
    expect(canWriteScope("global", agent({ role: "admin" }))).toBe(true);
    expect(canWriteScope("team", agent())).toBe(true);
  });
});

describe("review", () => {
  test("reviewers and admins of the tenant review; agents do not, primary ones included", () => {
    const proposal = doc("team");
    expect(canReview(proposal, agent({ role: "reviewer" }))).toBe(true);
    expect(canReview(proposal, agent({ role: "admin" }))).toBe(true);
    expect(canReview(proposal, agent())).toBe(false);
    expect(canReview(proposal, agent({ primary: true }))).toBe(false);
    expect(canReview(doc("team", { tenant: "globex" }), agent({ role: "reviewer" }))).toBe(false);
    expect(isReviewer(agent({ primary: true }))).toBe(false);
  });
});
