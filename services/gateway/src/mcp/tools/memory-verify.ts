import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { idArg, reasonArg, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryVerifyTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_verify",
    {
      title: "Confirm a memory is still true",
      description: "Record that you checked a memory and it still holds (it ranks as fresher).",
      inputSchema: { id: idArg, version: versionArg, note: reasonArg },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "memory.verify", {
          id: args.id,
          expectedVersion: args.version,
          note: args.note ?? null,
        });
        return writeOutcomeResult(outcome, "Verified the memory", "memory_verify");
      }),
  );
}
