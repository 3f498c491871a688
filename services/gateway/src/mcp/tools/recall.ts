import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, toolResult } from "../tool-result.ts";

export function registerRecallTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "recall",
    {
      title: "Recall keys",
      description:
        "Association, step one: the keys (concepts, names) a question brings to mind, not content. " +
        "Open a key with read_key, then a memory with read_memory.",
      inputSchema: {
        query: z.string().min(1).max(4000),
        limit: z.number().int().min(1).max(50).optional().describe("default 10"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const { keys, source } = await deps.ops.recall(deps.caller, args.query, args.limit ?? 10, {
          consistency: "strong",
        });
        const lines = keys.map(
          (k) =>
            `- ${k.label}${k.type ? ` (${k.type})` : ""}: ${k.memoryCount} memor${k.memoryCount === 1 ? "y" : "ies"}`,
        );
        return toolResult(
          { keys, source },
          keys.length
            ? `Keys:\n${lines.join("\n")}\n\nOpen one with read_key.`
            : "No keys come to mind for that.",
        );
      }),
  );
}
