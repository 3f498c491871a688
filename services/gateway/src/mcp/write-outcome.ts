import type { PlanResult, WriteResult } from "@cairn/contracts";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toolResult } from "./tool-result.ts";

function isPlan(outcome: WriteResult | PlanResult): outcome is PlanResult {
  return (outcome as PlanResult).dryRun === true;
}

/** A write's answer for a model: what changed, or for a dry run the plan and how to confirm it. */
export function writeOutcomeResult(
  outcome: WriteResult | PlanResult,
  done: string,
  confirmWith: string,
): CallToolResult {
  if (isPlan(outcome)) {
    const steps = outcome.plan
      .map((s) => `- ${s.action} ${s.slot} (${s.id}, version ${s.version})`)
      .join("\n");
    return toolResult(
      { ...outcome },
      `Dry run; nothing changed yet. Plan:\n${steps}\n\nTo carry it out, call ${confirmWith} again with ` +
        `token "${outcome.token}" (valid until ${outcome.expiresAt}).`,
    );
  }
  return toolResult(
    { ...outcome },
    `${done}: id ${outcome.id}, version ${outcome.version} (log position ${outcome.position}).`,
  );
}
