import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerWriteTool } from "../register-write-tool.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import {
  confirmationOf,
  idArg,
  memoryFields,
  reasonArg,
  tokenArg,
  toMemoryInput,
  versionArg,
} from "../tool-inputs.ts";

export function registerMemorySupersedeTool(server: McpServer, deps: ToolDeps): void {
  registerWriteTool(server, deps, {
    name: "memory_supersede",
    title: "Supersede a memory",
    description:
      "Replace a memory with a new one that takes over its slot (unless another slot is given); the " +
      "old one stays readable as superseded. Two steps: without a token you get the plan and a token.",
    inputSchema: {
      id: idArg,
      version: versionArg,
      ...memoryFields,
      slot: memoryFields.slot.optional().describe("default: the superseded memory's slot"),
      reason: reasonArg,
      token: tokenArg,
    },
    annotations: writeAnnotations({ destructive: true }),
    command: "memory.supersede",
    toCommand: ({ id, version, reason, token, slot, ...fields }) => {
      const { slot: _unused, ...replacement } = toMemoryInput({ ...fields, slot: slot ?? "" });
      return {
        id,
        expectedVersion: version,
        replacement: { ...replacement, ...(slot === undefined ? {} : { slot }) },
        reason: reason ?? null,
        ...confirmationOf(token),
      };
    },
    done: "Superseded the memory; the new one",
  });
}
