import { TimestampSchema } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { idArg, reasonArg, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryInvalidateTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_invalidate",
    {
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
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "memory.invalidate", {
          id: args.id,
          expectedVersion: args.version,
          invalidAt: args.invalid_at ?? new Date().toISOString(),
          reason: args.reason ?? null,
        });
        return writeOutcomeResult(outcome, "Invalidated the memory", "memory_invalidate");
      }),
  );
}
