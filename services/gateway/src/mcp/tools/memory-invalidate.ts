import { TimestampSchema } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { idArg, reasonArg, versionArg } from "../tool-inputs.ts";

export function registerMemoryInvalidateTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_invalidate",
    title: "Mark a memory no longer true",
    description:
      "Record that a memory stopped being true at a time (now by default); it drops out of searches " +
      "unless expired memories are asked for, and stays in the history.",
    inputSchema: {
      id: idArg,
      version: versionArg,
      invalid_at: TimestampSchema.optional().describe("when it stopped being true; default now"),
      reason: reasonArg,
    },
    annotations: writeAnnotations({ destructive: true, idempotent: true }),
    command: "memory.invalidate",
    toCommand: (args) => ({
      id: args.id,
      expectedVersion: args.version,
      invalidAt: args.invalid_at ?? new Date().toISOString(),
      reason: args.reason ?? null,
    }),
    done: "Invalidated the memory",
  });
}
