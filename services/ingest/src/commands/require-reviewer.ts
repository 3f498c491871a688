import { CairnError, type MemoryDocument } from "@cairn/contracts";
import { canReview, isReviewer, reviewRuleText } from "@cairn/memory-model";
import type { CommandContext } from "./command-context.ts";

/** The review rule (the memory model's), refused in words a model can act on. */
export function requireReviewer(ctx: CommandContext, what: string, proposal?: MemoryDocument): void {
  if (proposal ? canReview(proposal, ctx.principal) : isReviewer(ctx.principal)) return;
  throw new CairnError("forbidden", `${what} needs a reviewer or an admin of the tenant`, {
    hint: `leave it for review (${reviewRuleText})`,
  });
}
