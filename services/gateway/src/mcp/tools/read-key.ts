import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, toolResult } from "../tool-result.ts";

export function registerReadKeyTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "read_key",
    {
      title: "Read a key",
      description:
        "Association, step two: the memories a key leads to (slots and titles). Open one with read_memory, " +
        "passing the key as via_key so the link is strengthened.",
      inputSchema: {
        key: z.string().min(1).max(200).describe("a key's label or id, as recall returned it"),
        limit: z.number().int().min(1).max(50).optional().describe("default 20"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const reply = await deps.ops.readKey(deps.caller, args.key, args.limit ?? 20, {
          consistency: "strong",
        });
        const lines = reply.memories.map((m) => `- ${m.slot}: ${m.title} (${m.id})`);
        return toolResult(
          { ...reply },
          `Key ${reply.key.label} leads to:\n${lines.join("\n")}\n\nOpen one with read_memory (via_key: "${reply.key.id ?? reply.key.label}").`,
        );
      }),
  );
}
