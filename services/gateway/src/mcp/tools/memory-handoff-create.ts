import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { memoryFields, toMemoryInput } from "../tool-inputs.ts";

export function registerMemoryHandoffCreateTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_handoff_create",
    title: "Open a handoff",
    description:
      "Leave work in progress for the next agent or session: what was done, what is next, where things are.",
    inputSchema: memoryFields,
    annotations: writeAnnotations(),
    command: "handoff.open",
    toCommand: (args, deps) => ({ handoff: toMemoryInput(args, deps.episode) }),
    done: "Opened the handoff",
  });
}
