import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { memoryFields, toMemoryInput } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryHandoffCreateTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_handoff_create",
    {
      title: "Open a handoff",
      description:
        "Leave work in progress for the next agent or session: what was done, what is next, where things are.",
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
        const outcome = await deps.ops.write(deps.caller, "handoff.open", { handoff: toMemoryInput(args) });
        return writeOutcomeResult(outcome, "Opened the handoff", "memory_handoff_create");
      }),
  );
}
