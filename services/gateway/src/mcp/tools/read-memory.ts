import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { renderStoredMemory, runTool, storedDataNotice, storedDocument, toolResult } from "../tool-result.ts";

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
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const reply = await deps.ops.readMemory(deps.caller, args.id, args.via_key ?? null, {
          consistency: "strong",
        });
        return toolResult(
          {
            notice: storedDataNotice,
            memory: storedDocument(reply.document),
            version: reply.document.version,
            links: reply.links,
            backlinks: reply.backlinks,
          },
          `${storedDataNotice}\n\n${renderStoredMemory(reply.document)}\n\nversion: ${reply.document.version}`,
        );
      }),
  );
}
