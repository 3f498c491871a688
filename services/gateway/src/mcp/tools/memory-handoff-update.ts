import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { changeFields, idArg, toChanges, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryHandoffUpdateTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_handoff_update",
    {
      title: "Update a handoff",
      description: "Record progress on an open handoff, given the version you read.",
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
        const outcome = await deps.ops.write(deps.caller, "handoff.update", {
          id,
          expectedVersion: version,
          changes: toChanges(rest),
        });
        return writeOutcomeResult(outcome, "Updated the handoff", "memory_handoff_update");
      }),
  );
}
