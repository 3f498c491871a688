import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { confirmationOf, reasonArg, tokenArg } from "../tool-inputs.ts";

export function registerMemoryResolveConflictTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_resolve_conflict",
    title: "Resolve a conflict between two memories",
    description:
      "Keep one of two conflicting memories and supersede, archive or delete the other. Two steps: " +
      "without a token you get the plan and a token; call again with it.",
    inputSchema: {
      keep_id: z.uuid().describe("the memory that stays"),
      other_id: z.uuid().describe("the memory that goes"),
      action: z.enum(["supersede", "archive", "delete"]),
      reason: reasonArg,
      token: tokenArg,
    },
    annotations: writeAnnotations({ destructive: true }),
    command: "memory.resolve_conflict",
    toCommand: (args) => ({
      keepId: args.keep_id,
      otherId: args.other_id,
      action: args.action,
      reason: args.reason ?? null,
      ...confirmationOf(args.token),
    }),
    done: "Resolved the conflict",
  });
}
