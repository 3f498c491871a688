import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerNoteWriteTool } from "../register-note-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";

export function registerMemoryHandoffCompleteTool(server: McpServer, deps: ToolDeps): void {
  registerNoteWriteTool(server, deps, {
    name: "memory_handoff_complete",
    title: "Complete a handoff",
    description: "Close a handoff whose work is done, with a short summary of the outcome.",
    annotations: writeAnnotations(),
    note: "summary",
    command: "handoff.complete",
    done: "Completed the handoff",
  });
}
