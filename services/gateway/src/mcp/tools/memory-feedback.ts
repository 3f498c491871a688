import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { reasonArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryFeedbackTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_feedback",
    {
      title: "Rate a memory",
      description: "Say whether a memory helped; useful ones rank higher for everyone in the tenant.",
      inputSchema: { id: z.uuid(), useful: z.boolean(), note: reasonArg },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "feedback.give", {
          memoryId: args.id,
          useful: args.useful,
          note: args.note ?? null,
        });
        return writeOutcomeResult(outcome, "Recorded the feedback", "memory_feedback");
      }),
  );
}
