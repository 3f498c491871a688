import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerNoteWriteTool } from "../register-note-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";

export function registerMemoryInboxRejectTool(server: McpServer, deps: ToolDeps): void {
  registerNoteWriteTool(server, deps, {
    name: "memory_inbox_reject",
    title: "Reject a proposal",
    description: "Reviewers only: reject a pending proposal, with a reason for its author.",
    annotations: writeAnnotations({ destructive: true }),
    note: "reason",
    command: "proposal.reject",
    done: "Rejected the proposal",
  });
}
