import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { memoryFields, toMemoryInput } from "../tool-inputs.ts";

export function registerMemoryProposeTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_propose",
    title: "Propose a memory",
    description:
      "Put a candidate memory in the inbox for a reviewer: for inferences, guesses and anything not yet " +
      "confirmed. A reviewer promotes it to a memory or rejects it.",
    inputSchema: memoryFields,
    annotations: writeAnnotations(),
    command: "proposal.submit",
    toCommand: (args, deps) => ({ proposal: toMemoryInput(args, deps.episode) }),
    done: "Proposed; it waits in the inbox",
  });
}
