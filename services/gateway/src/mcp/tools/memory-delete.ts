import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { confirmationOf, idArg, reasonArg, tokenArg, versionArg } from "../tool-inputs.ts";

export function registerMemoryDeleteTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_delete",
    title: "Delete a memory",
    description:
      "Delete a memory (a soft, reversible delete). Two steps: call without a token to see the plan " +
      "and get a token, then call again with the token.",
    inputSchema: { id: idArg, version: versionArg, reason: reasonArg, token: tokenArg },
    annotations: writeAnnotations({ destructive: true }),
    command: "memory.delete",
    toCommand: (args) => ({
      id: args.id,
      expectedVersion: args.version,
      reason: args.reason ?? null,
      ...confirmationOf(args.token),
    }),
    done: "Deleted the memory",
  });
}
