import { StatusSchema } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, storedDataNotice, toolResult } from "../tool-result.ts";

export function registerMemoryInboxListTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_inbox_list",
    {
      title: "List proposals",
      description: "Proposals in the inbox (pending by default), newest first; optionally matching a query.",
      inputSchema: {
        query: z.string().min(1).max(4000).optional(),
        status: z.array(StatusSchema).optional().describe("default [pending]"),
        limit: z.number().int().min(1).max(200).optional().describe("default 50"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const { items, position } = await deps.ops.list(
          deps.caller,
          "proposal",
          { query: args.query, status: args.status ?? ["pending"], limit: args.limit },
          { consistency: "strong" },
        );
        const lines = items.map(
          (p) =>
            `- ${p.slot}: ${p.title || p.content.slice(0, 80)} (id ${p.id}, version ${p.version}, by ${p.agent}, ${p.status})`,
        );
        return toolResult(
          {
            notice: storedDataNotice,
            position,
            proposals: items.map((p) => ({
              id: p.id,
              slot: p.slot,
              title: p.title,
              kind: p.kind,
              status: p.status,
              version: p.version,
              author: p.agent,
              scope: p.scope,
              createdAt: p.createdAt,
            })),
          },
          items.length ? `${items.length} proposal(s):\n${lines.join("\n")}` : "The inbox is empty.",
        );
      }),
  );
}
