import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { renderStoredMemory, runTool, storedDataNotice, storedDocument, toolResult } from "../tool-result.ts";

export function registerMemoryContextTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_context",
    {
      title: "Context for a task",
      description:
        "Call first when starting a task: the few most relevant memories within a token budget, " +
        "hints where active memories conflict, and how many proposals and handoffs are open.",
      inputSchema: {
        task: z.string().min(1).max(4000).describe("what you are about to do, in a sentence or two"),
        budget_tokens: z.number().int().min(100).max(32_000).optional().describe("default 2000"),
        project: z.string().optional().describe("only memories of this project"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const result = await deps.ops.context(
          deps.caller,
          { task: args.task, budgetTokens: args.budget_tokens, project: args.project },
          { consistency: "strong" },
        );
        const parts = [storedDataNotice, ""];
        for (const m of result.memories)
          parts.push(renderStoredMemory(m.document, { truncatedTo: m.truncatedTo }));
        if (result.memories.length === 0) parts.push("(no stored memory matches this task yet)");
        if (result.more.length > 0) {
          parts.push("", "More that did not fit the budget (memory_read to open):");
          for (const m of result.more) parts.push(`- ${m.slot}: ${m.title} (${m.id})`);
        }
        if (result.conflicts.length > 0) {
          parts.push("", "Possible conflicts:");
          for (const c of result.conflicts)
            parts.push(`- ${c.slots[0]} vs ${c.slots[1]}: ${c.detail}; ${c.hint}`);
        }
        parts.push(
          "",
          `Open proposals: ${result.pending.proposals ?? "unknown"}; open handoffs: ${result.pending.handoffs ?? "unknown"}.`,
          `Ranking: ${result.ranking === "ranked" ? "ranked" : "search order (ranking service not answering)"}.`,
        );
        return toolResult(
          {
            ...result,
            notice: storedDataNotice,
            memories: result.memories.map((m) => ({
              ...storedDocument(m.document, m.truncatedTo),
              score: m.score,
            })),
          },
          parts.join("\n"),
        );
      }),
  );
}
