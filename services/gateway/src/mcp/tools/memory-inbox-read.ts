import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, storedRecordResult } from "../tool-result.ts";

export function registerMemoryInboxReadTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_inbox_read",
    {
      title: "Read a proposal",
      description: "The full content of a proposal and its version (needed to revise, promote or reject it).",
      inputSchema: { id: z.uuid() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const reply = await deps.ops.read(
          deps.caller,
          { id: args.id, tier: "proposal" },
          { consistency: "strong" },
        );
        return storedRecordResult("proposal", reply.document);
      }),
  );
}
