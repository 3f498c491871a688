import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, storedDataNotice, toolResult } from "../tool-result.ts";

export function registerMemoryHistoryTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_history",
    {
      title: "A memory's history",
      description:
        "Every version of one memory, read from the log: when, by which agent, which change, and the text of " +
        "that version (none once the memory is purged). Read one past state with memory_read and as_of.",
      inputSchema: { id: z.uuid() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const history = await deps.ops.history(deps.caller, args.id, { consistency: "strong" });
        const lines = history.versions.map(
          (v) =>
            `v${v.version} ${v.at} ${v.agent} ${v.type}${v.changed.length > 0 ? ` (${v.changed.join(", ")})` : ""}${v.note ? `: ${v.note}` : ""}`,
        );
        return toolResult(
          { notice: storedDataNotice, ...history },
          `${storedDataNotice}\n\n${history.purged ? "purged: the text of every version is gone\n" : ""}${lines.join("\n")}`,
        );
      }),
  );
}
