import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { reasonArg } from "../tool-inputs.ts";

export function registerMemoryFeedbackTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_feedback",
    title: "Rate a memory",
    description: "Say whether a memory helped; useful ones rank higher for everyone in the tenant.",
    inputSchema: { id: z.uuid(), useful: z.boolean(), note: reasonArg },
    annotations: writeAnnotations(),
    command: "feedback.give",
    toCommand: (args) => ({ memoryId: args.id, useful: args.useful, note: args.note ?? null }),
    done: "Recorded the feedback",
  });
}
