import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { changeFields, idArg, toChanges, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryInboxUpdateTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_inbox_update",
    {
      title: "Revise a proposal",
      description: "Change a pending proposal's content or fields, given the version you read.",
      inputSchema: { id: idArg, version: versionArg, ...changeFields },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ id, version, ...rest }) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "proposal.revise", {
          id,
          expectedVersion: version,
          changes: toChanges(rest),
        });
        return writeOutcomeResult(outcome, "Revised the proposal", "memory_inbox_update");
      }),
  );
}
