import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { changeArgs, toChangeCommand } from "../tool-inputs.ts";

export function registerMemoryInboxUpdateTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_inbox_update",
    title: "Revise a proposal",
    description: "Change a pending proposal's content or fields, given the version you read.",
    inputSchema: changeArgs,
    annotations: writeAnnotations(),
    command: "proposal.revise",
    toCommand: toChangeCommand,
    done: "Revised the proposal",
  });
}
