// Who reviews: admission control keeps agents' proposals out of the confirmed memories until
// somebody whose job it is decides. That is a role, not a visibility: a reviewer or an admin
// of the proposal's tenant. A primary agent sees every agent's private memories, but it is
// still an agent and proposes like the others. The same rule covers the other decisions made
// on the tenant's behalf (consolidating memories, merging keys).
import type { Principal } from "@cairn/contracts";
import { canChange, type OwnedMemory } from "./visibility.ts";

export function isReviewer(principal: Principal): boolean {
  return principal.role === "reviewer" || principal.role === "admin";
}

/** Whether `principal` may promote, reject or edit-and-promote this proposal. */
export function canReview(proposal: OwnedMemory, principal: Principal): boolean {
  return isReviewer(principal) && canChange(proposal, principal);
}

export const reviewRuleText =
  "a reviewer or an admin of the tenant reviews proposals; agents, primary ones included, propose";
