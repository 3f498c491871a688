import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, storedRecordResult } from "../tool-result.ts";

export function registerReadMemoryTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "read_memory",
    {
      title: "Read a memory by association",
      description:
        "Association, step three: open a memory reached through a key; via_key records the path so the " +
        "key-memory link grows stronger.",
      inputSchema: {
        id: z.uuid(),
        via_key: z.string().min(1).max(200).optional().describe("the key (id or label) you came through"),
      },
      annotations: writeAnnotations({ idempotent: true }),
    },
    (args) =>
      runTool(async () => {
        const reply = await deps.ops.readMemory(deps.caller, args.id, args.via_key ?? null, {
          consistency: "strong",
        });
        return storedRecordResult("memory", reply.document, {
          links: reply.links,
          backlinks: reply.backlinks,
        });
      }),
  );
}
