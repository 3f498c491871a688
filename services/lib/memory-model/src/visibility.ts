// Who sees and who changes a memory: the one rule every service applies (ingest before it
// decides, search when it answers, ranking when it lists keys). Search translates it into
// RediSearch and SQL filters next to its indexes; a property test holds those translations to
// this predicate.
import type { MemoryDocument, Principal, Scope } from "@cairn/contracts";

export type OwnedMemory = Pick<MemoryDocument, "tenant" | "agent" | "scope">;

/**
 * Global memories everybody; team memories the tenant; an agent's private memories that
 * agent and its tenant's primary agent. A memory one cannot see is reported as not found, so
 * the ids of others' private memories do not leak.
 */
export function canSee(doc: OwnedMemory, principal: Principal): boolean {
  if (doc.scope === "global") return true;
  if (doc.tenant !== principal.tenant) return false;
  return doc.scope === "team" || doc.agent === principal.agent || principal.primary;
}

/** Changing a memory also needs its tenant, and for a global memory an admin. */
export function canChange(doc: OwnedMemory, principal: Principal): boolean {
  if (!canSee(doc, principal) || doc.tenant !== principal.tenant) return false;
  return doc.scope !== "global" || principal.role === "admin";
}

/** Only admins write to the global scope (it is visible to every tenant of the deployment). */
export function canWriteScope(scope: Scope, principal: Principal): boolean {
  return scope !== "global" || principal.role === "admin";
}
