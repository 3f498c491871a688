import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerNoteWriteTool } from "../register-note-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";

export function registerMemoryVerifyTool(server: McpServer, deps: ToolDeps): void {
  registerNoteWriteTool(server, deps, {
    name: "memory_verify",
    title: "Confirm a memory is still true",
    description: "Record that you checked a memory and it still holds (it ranks as fresher).",
    annotations: writeAnnotations({ idempotent: true }),
    note: "note",
    command: "memory.verify",
    done: "Verified the memory",
  });
}
