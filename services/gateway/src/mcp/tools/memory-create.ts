import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { memoryFields, toMemoryInput } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryCreateTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_create",
    {
      title: "Create a memory",
      description:
        "Store a confirmed memory: complete and self-contained, under a slot name. Use it for what you " +
        "verified or the user stated; when unsure, use memory_propose instead.",
      inputSchema: memoryFields,
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "memory.create", { memory: toMemoryInput(args) });
        return writeOutcomeResult(outcome, "Created the memory", "memory_create");
      }),
  );
}
