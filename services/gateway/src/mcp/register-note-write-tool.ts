import type { IngestCommandName } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { z } from "zod";
import type { CommandInput } from "../backend/cairn-backend.ts";
import { registerWriteTool, type WriteToolSpec } from "./register-write-tool.ts";
import type { ToolDeps } from "./tool-deps.ts";
import { idArg, reasonArg, versionArg } from "./tool-inputs.ts";

export type NoteWriteToolSpec<N extends IngestCommandName> = Omit<
  WriteToolSpec<z.ZodRawShape, N>,
  "inputSchema" | "toCommand"
> & {
  /** The name of the optional note, both as the tool's argument and in the command's input. */
  note: keyof CommandInput<N> & string;
};

/**
 * Registers a write that moves one record on at the version read, with a note for the record
 * (`note`, `reason`, `summary`): arguments `id`, `version` and the note.
 */
export function registerNoteWriteTool<N extends IngestCommandName>(
  server: McpServer,
  deps: ToolDeps,
  spec: NoteWriteToolSpec<N>,
): void {
  const { note, ...rest } = spec;
  registerWriteTool(server, deps, {
    ...rest,
    inputSchema: { id: idArg, version: versionArg, [note]: reasonArg },
    toCommand: (args) => {
      // `note` names a field of the command's input, checked where the tool is declared.
      const input: Record<string, unknown> = {
        id: args.id,
        expectedVersion: args.version,
        [note]: args[note] ?? null,
      };
      return input as Partial<CommandInput<N>>;
    },
  });
}
