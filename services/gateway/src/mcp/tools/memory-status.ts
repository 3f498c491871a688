import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, toolResult } from "../tool-result.ts";

export function registerMemoryStatusTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_status",
    {
      title: "Cairn status",
      description:
        "Who you are to Cairn (tenant, agent, role), whether its services answer, open work counts, and the maintenance doctor's health summary.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      runTool(async () => {
        const status = await deps.ops.status(deps.caller);
        return toolResult(status);
      }),
  );
}
