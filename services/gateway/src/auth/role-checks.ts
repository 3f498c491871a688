import { CairnError, type Principal, type Scope } from "@cairn/contracts";

/** Promoting and rejecting proposals is for reviewers (and admins). */
export function requireReviewer(principal: Principal): void {
  if (principal.role === "reviewer" || principal.role === "admin") return;
  throw new CairnError("forbidden", "only a reviewer or an admin may promote or reject proposals", {
    hint: "leave the proposal in the inbox for a reviewer, or use a reviewer's key",
  });
}

export function requireAdmin(principal: Principal, what: string): void {
  if (principal.role === "admin") return;
  throw new CairnError("forbidden", `only an admin may ${what}`, { hint: "use an admin key" });
}

/**
 * A `global` memory is seen by every tenant of the deployment, so only an admin writes one;
 * agents write `agent` (private) or `team` memories.
 */
export function requireScopeAllowed(principal: Principal, scope: Scope | undefined): void {
  if (scope === "global" && principal.role !== "admin") {
    throw new CairnError("forbidden", "only an admin may write a global memory", {
      hint: "use scope `team` to share with your tenant, or `agent` to keep it private",
    });
  }
}
