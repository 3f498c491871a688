import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { idArg, reasonArg, tokenArg, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryDeleteTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_delete",
    {
      title: "Delete a memory",
      description:
        "Delete a memory (a soft, reversible delete). Two steps: call without a token to see the plan " +
        "and get a token, then call again with the token.",
      inputSchema: { id: idArg, version: versionArg, reason: reasonArg, token: tokenArg },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "memory.delete", {
          id: args.id,
          expectedVersion: args.version,
          reason: args.reason ?? null,
          dryRun: args.token === undefined,
          ...(args.token === undefined ? {} : { token: args.token }),
        });
        return writeOutcomeResult(outcome, "Deleted the memory", "memory_delete");
      }),
  );
}
