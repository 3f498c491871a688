import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { changeArgs, toChangeCommand } from "../tool-inputs.ts";

export function registerMemoryHandoffUpdateTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_handoff_update",
    title: "Update a handoff",
    description: "Record progress on an open handoff, given the version you read.",
    inputSchema: changeArgs,
    annotations: writeAnnotations(),
    command: "handoff.update",
    toCommand: toChangeCommand,
    done: "Updated the handoff",
  });
}
