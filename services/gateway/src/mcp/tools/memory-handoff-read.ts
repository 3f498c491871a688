import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import {
  renderStoredMemory,
  runTool,
  storedDataNotice,
  storedDocument,
  storedRecordResult,
  toolResult,
} from "../tool-result.ts";

export function registerMemoryHandoffReadTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_handoff_read",
    {
      title: "Read handoffs",
      description:
        "With an id: that handoff in full with its version. Without: the open handoffs you can see, newest first.",
      inputSchema: {
        id: z.uuid().optional(),
        query: z.string().min(1).max(4000).optional().describe("when listing, only handoffs matching this"),
        include_completed: z.boolean().optional().describe("when listing, also completed handoffs"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        if (args.id !== undefined) {
          const reply = await deps.ops.read(
            deps.caller,
            { id: args.id, tier: "handoff" },
            { consistency: "strong" },
          );
          return storedRecordResult("handoff", reply.document);
        }
        const { items, position } = await deps.ops.list(
          deps.caller,
          "handoff",
          { query: args.query, status: args.include_completed ? ["active", "completed"] : ["active"] },
          { consistency: "strong" },
        );
        return toolResult(
          { notice: storedDataNotice, position, handoffs: items.map((d) => storedDocument(d)) },
          items.length
            ? `${storedDataNotice}\n\n${items.map((d) => renderStoredMemory(d)).join("\n\n")}`
            : "No open handoffs.",
        );
      }),
  );
}
