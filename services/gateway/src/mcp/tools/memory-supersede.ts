import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { idArg, memoryFields, reasonArg, tokenArg, toMemoryInput, versionArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemorySupersedeTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_supersede",
    {
      title: "Supersede a memory",
      description:
        "Replace a memory with a new one that takes over its slot (unless another slot is given); the " +
        "old one stays readable as superseded. Two steps: without a token you get the plan and a token.",
      inputSchema: {
        id: idArg,
        version: versionArg,
        ...memoryFields,
        slot: memoryFields.slot.optional().describe("default: the superseded memory's slot"),
        reason: reasonArg,
        token: tokenArg,
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ id, version, reason, token, slot, ...fields }) =>
      runTool(async () => {
        const { slot: _unused, ...replacement } = toMemoryInput({ ...fields, slot: slot ?? "" });
        const outcome = await deps.ops.write(deps.caller, "memory.supersede", {
          id,
          expectedVersion: version,
          replacement: { ...replacement, ...(slot === undefined ? {} : { slot }) },
          reason: reason ?? null,
          dryRun: token === undefined,
          ...(token === undefined ? {} : { token }),
        });
        return writeOutcomeResult(outcome, "Superseded the memory; the new one", "memory_supersede");
      }),
  );
}
