import { CairnError } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, storedRecordResult } from "../tool-result.ts";

export function registerMemoryReadTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_read",
    {
      title: "Read a memory",
      description:
        "The full content of one memory and its version (pass that version to update, delete or supersede it). " +
        "Give its id, or the slot of an active memory. With as_of (a log position or an ISO time) it is the memory " +
        "as it was then, read from the log.",
      inputSchema: {
        id: z.uuid().optional(),
        slot: z.string().optional(),
        as_of: z
          .union([z.number().int().nonnegative(), z.iso.datetime({ offset: true })])
          .optional()
          .describe("a log position or an ISO time: the memory as it was then"),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      runTool(async () => {
        if ((args.id === undefined) === (args.slot === undefined)) {
          throw new CairnError("validation_failed", "give exactly one of id or slot");
        }
        const reply = await deps.ops.read(
          deps.caller,
          {
            id: args.id,
            slot: args.slot,
            ...(args.slot === undefined ? {} : { tier: "memory" as const }),
            ...(args.as_of === undefined ? {} : { asOf: args.as_of }),
          },
          { consistency: "strong" },
        );
        const { neighbours } = reply;
        const episode = reply.document.episode;
        if (!neighbours || !episode) return storedRecordResult("memory", reply.document);
        const ref = (r: { id: string; slot: string } | null) => (r ? `${r.slot} (${r.id})` : "none");
        return storedRecordResult("memory", reply.document, { neighbours }, [
          `episode: ${episode.id}${episode.order === null ? "" : ` #${episode.order}`}; before: ${ref(neighbours.previous)}; after: ${ref(neighbours.next)}`,
        ]);
      }),
  );
}
