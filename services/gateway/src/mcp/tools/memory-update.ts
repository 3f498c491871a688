import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { changeArgs, toChangeCommand } from "../tool-inputs.ts";

export function registerMemoryUpdateTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_update",
    title: "Update a memory",
    description:
      "Change a memory's content or fields (not its slot or scope), given the version you read. " +
      "To replace it with a different memory, use memory_supersede.",
    inputSchema: changeArgs,
    annotations: writeAnnotations(),
    command: "memory.update",
    toCommand: toChangeCommand,
    done: "Updated the memory",
  });
}
