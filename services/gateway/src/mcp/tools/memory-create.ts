import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { memoryFields, toMemoryInput } from "../tool-inputs.ts";

export function registerMemoryCreateTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_create",
    title: "Create a memory",
    description:
      "Store a confirmed memory: complete and self-contained, under a slot name. Use it for what you " +
      "verified or the user stated; when unsure, use memory_propose instead.",
    inputSchema: memoryFields,
    annotations: writeAnnotations(),
    command: "memory.create",
    toCommand: (args, deps) => ({ memory: toMemoryInput(args, deps.episode) }),
    done: "Created the memory",
  });
}
