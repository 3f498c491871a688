import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { idArg, reasonArg, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryInboxRejectTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_inbox_reject",
    {
      title: "Reject a proposal",
      description: "Reviewers only: reject a pending proposal, with a reason for its author.",
      inputSchema: { id: idArg, version: versionArg, reason: reasonArg },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "proposal.reject", {
          id: args.id,
          expectedVersion: args.version,
          reason: args.reason ?? null,
        });
        return writeOutcomeResult(outcome, "Rejected the proposal", "memory_inbox_reject");
      }),
  );
}
