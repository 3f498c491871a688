import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { changeArgs, toChanges } from "../tool-inputs.ts";

export function registerMemoryInboxPromoteTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_inbox_promote",
    title: "Promote a proposal",
    description: "Reviewers only: turn a pending proposal into a confirmed memory, optionally with changes.",
    inputSchema: changeArgs,
    annotations: writeAnnotations(),
    command: "proposal.promote",
    toCommand: ({ id, version, ...rest }) => {
      const changes = toChanges(rest);
      return { id, expectedVersion: version, ...(Object.keys(changes).length > 0 ? { changes } : {}) };
    },
    done: "Promoted the proposal to a memory",
  });
}
