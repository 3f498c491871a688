import type { MemoryDocument, Principal, Scope } from "@cairn/contracts";

type Owned = Pick<MemoryDocument, "tenant" | "agent" | "scope">;

/**
 * Who sees a memory: global ones everybody; team ones the tenant; an agent's private ones
 * that agent and the tenant's primary agent. A memory one cannot see is reported as not
 * found, so ids of others' private memories do not leak.
 */
export function canSee(doc: Owned, principal: Principal): boolean {
  if (doc.scope === "global") return true;
  if (doc.tenant !== principal.tenant) return false;
  return doc.scope === "team" || doc.agent === principal.agent || principal.primary;
}

/** Changing a memory also needs its tenant, and for a global memory an admin. */
export function canChange(doc: Owned, principal: Principal): boolean {
  if (!canSee(doc, principal) || doc.tenant !== principal.tenant) return false;
  return doc.scope !== "global" || principal.role === "admin";
}

/** Only admins write to the global scope (it is visible to every tenant of the deployment). */
export function canWriteScope(scope: Scope, principal: Principal): boolean {
  return scope !== "global" || principal.role === "admin";
}

/** Proposals are reviewed by a reviewer, an admin or the tenant's primary agent. */
export function canReview(principal: Principal): boolean {
  return principal.role === "reviewer" || principal.role === "admin" || principal.primary;
}
