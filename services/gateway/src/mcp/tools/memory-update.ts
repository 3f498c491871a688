import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { changeFields, idArg, toChanges, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryUpdateTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_update",
    {
      title: "Update a memory",
      description:
        "Change a memory's content or fields (not its slot or scope), given the version you read. " +
        "To replace it with a different memory, use memory_supersede.",
      inputSchema: { id: idArg, version: versionArg, ...changeFields },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ id, version, ...rest }) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "memory.update", {
          id,
          expectedVersion: version,
          changes: toChanges(rest),
        });
        return writeOutcomeResult(outcome, "Updated the memory", "memory_update");
      }),
  );
}
