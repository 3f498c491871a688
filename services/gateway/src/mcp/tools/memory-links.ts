import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, toolResult } from "../tool-result.ts";

export function registerMemoryLinksTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_links",
    {
      title: "Links of a memory",
      description: "The memories this one links to and the memories that link to it (ids, slots, titles).",
      inputSchema: { id: z.uuid() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const reply = await deps.ops.read(deps.caller, { id: args.id }, { consistency: "strong" });
        const line = (l: { id: string; slot: string; title: string }) => `- ${l.slot}: ${l.title} (${l.id})`;
        const text = [
          `Links of ${reply.document.slot}:`,
          ...(reply.links.length ? reply.links.map(line) : ["(none)"]),
          "Backlinks:",
          ...(reply.backlinks.length ? reply.backlinks.map(line) : ["(none)"]),
        ].join("\n");
        return toolResult({ id: args.id, links: reply.links, backlinks: reply.backlinks }, text);
      }),
  );
}
