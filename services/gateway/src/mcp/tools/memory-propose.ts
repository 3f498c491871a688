import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { memoryFields, toMemoryInput } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryProposeTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_propose",
    {
      title: "Propose a memory",
      description:
        "Put a candidate memory in the inbox for a reviewer: for inferences, guesses and anything not yet " +
        "confirmed. A reviewer promotes it to a memory or rejects it.",
      inputSchema: memoryFields,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "proposal.submit", {
          proposal: toMemoryInput(args),
        });
        return writeOutcomeResult(outcome, "Proposed; it waits in the inbox", "memory_propose");
      }),
  );
}
