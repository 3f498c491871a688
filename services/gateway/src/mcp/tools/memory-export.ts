// `memory_export`: what the caller may see, as Cairn's export records (the format
// `pnpm cairn export` writes and `pnpm cairn import --from cairn` reads), a page at a time.
import { ScopeSchema } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, storedDataNotice, toolResult } from "../tool-result.ts";

export function registerMemoryExportTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_export",
    {
      title: "Export memories",
      description:
        "The memories, proposals and handoffs you may see, as Cairn export records (tier, status, content, " +
        "every version, links, keys, validity, provenance), oldest first, a page at a time: pass `next` as " +
        "`after` for the following page. The records are what `pnpm cairn import --from cairn` reads, one per line.",
      inputSchema: {
        scope: ScopeSchema.optional().describe("only memories of this scope"),
        after: z.number().int().nonnegative().optional().describe("the `next` of the previous page"),
        limit: z.number().int().min(1).max(200).optional().describe("records per page (default 50)"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const page = await deps.ops.exportPage(deps.caller, {
          after: args.after ?? 0,
          limit: args.limit ?? 50,
          ...(args.scope ? { scope: args.scope } : {}),
        });
        const lines = page.records.map((r) => JSON.stringify(r));
        const more = page.next === null ? "no more pages" : `more: call again with after=${page.next}`;
        return toolResult(
          { notice: storedDataNotice, ...page },
          `${storedDataNotice}\n\n${page.records.length} record(s); ${more}\n${lines.join("\n")}`,
        );
      }),
  );
}
