import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { ToolDeps } from "../tool-deps.ts";
import { reasonArg, tokenArg } from "../tool-inputs.ts";
import { runTool } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

export function registerMemoryResolveConflictTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_resolve_conflict",
    {
      title: "Resolve a conflict between two memories",
      description:
        "Keep one of two conflicting memories and supersede, archive or delete the other. Two steps: " +
        "without a token you get the plan and a token; call again with it.",
      inputSchema: {
        keep_id: z.uuid().describe("the memory that stays"),
        other_id: z.uuid().describe("the memory that goes"),
        action: z.enum(["supersede", "archive", "delete"]),
        reason: reasonArg,
        token: tokenArg,
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args) =>
      runTool(async () => {
        const outcome = await deps.ops.write(deps.caller, "memory.resolve_conflict", {
          keepId: args.keep_id,
          otherId: args.other_id,
          action: args.action,
          reason: args.reason ?? null,
          dryRun: args.token === undefined,
          ...(args.token === undefined ? {} : { token: args.token }),
        });
        return writeOutcomeResult(outcome, "Resolved the conflict", "memory_resolve_conflict");
      }),
  );
}
