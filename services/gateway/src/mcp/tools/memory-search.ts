import { KindSchema, RetrievalModeSchema, StatusSchema } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { explanationLine } from "../explanation-line.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { renderStoredMemory, runTool, storedDataNotice, storedDocument, toolResult } from "../tool-result.ts";

export function registerMemorySearchTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_search",
    {
      title: "Search memories",
      description: "Find confirmed memories by meaning and words, best first, with filters.",
      inputSchema: {
        query: z.string().min(1).max(4000),
        kind: z.array(KindSchema).optional(),
        tags: z.array(z.string()).optional(),
        project: z.string().optional(),
        author: z.string().optional().describe("only memories written by this agent"),
        status: z.array(StatusSchema).optional().describe("default: any status of the tier"),
        mode: RetrievalModeSchema.optional().describe("lexical, vector or hybrid (default)"),
        limit: z.number().int().min(1).max(50).optional().describe("default 10"),
        include_expired: z.boolean().optional().describe("include memories past their invalid_at"),
        explain: z
          .boolean()
          .optional()
          .describe("say why each memory came back: relevance parts, episode neighbour, expansions, factors"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        const result = await deps.ops.search(
          deps.caller,
          {
            query: args.query,
            kind: args.kind,
            tags: args.tags,
            project: args.project,
            agent: args.author,
            status: args.status,
            mode: args.mode,
            limit: args.limit,
            includeExpired: args.include_expired,
            explain: args.explain,
          },
          { consistency: "strong" },
        );
        const text = [
          storedDataNotice,
          "",
          ...(result.results.length === 0
            ? ["(nothing found)"]
            : result.results.map((r) =>
                r.explanation
                  ? `${renderStoredMemory(r.document)}\nwhy: ${explanationLine(r.explanation)}`
                  : renderStoredMemory(r.document),
              )),
        ].join("\n");
        return toolResult(
          {
            notice: storedDataNotice,
            ranking: result.ranking,
            position: result.position,
            results: result.results.map((r) => ({
              ...storedDocument(r.document),
              score: r.score,
              ...(r.explanation ? { explanation: r.explanation } : {}),
            })),
          },
          text,
        );
      }),
  );
}
