import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { changeFields, idArg, toChanges, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryInboxPromoteTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_inbox_promote",
    {
      title: "Promote a proposal",
      description:
        "Reviewers only: turn a pending proposal into a confirmed memory, optionally with changes.",
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
        const changes = toChanges(rest);
        const outcome = await deps.ops.write(deps.caller, "proposal.promote", {
          id,
          expectedVersion: version,
          ...(Object.keys(changes).length > 0 ? { changes } : {}),
        });
        return writeOutcomeResult(outcome, "Promoted the proposal to a memory", "memory_inbox_promote");
      }),
  );
}
