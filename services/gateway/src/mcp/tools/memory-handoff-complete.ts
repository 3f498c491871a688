import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { idArg, reasonArg, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryHandoffCompleteTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_handoff_complete",
    {
      title: "Complete a handoff",
      description: "Close a handoff whose work is done, with a short summary of the outcome.",
      inputSchema: { id: idArg, version: versionArg, summary: reasonArg },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "handoff.complete", {
          id: args.id,
          expectedVersion: args.version,
          summary: args.summary ?? null,
        });
        return writeOutcomeResult(outcome, "Completed the handoff", "memory_handoff_complete");
      }),
  );
}
