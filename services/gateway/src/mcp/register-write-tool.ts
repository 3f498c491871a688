// A write tool is a declaration: what the model sees (name, title, description, arguments,
// annotations) and the ingest command its arguments become. Sending the command, turning a
// failure into an `isError` result and answering with what changed (or a dry run's plan) are
// the same for every write, and so is the optional `idempotency_key` that makes a retry safe.
import type { IngestCommandName } from "@cairn/contracts";
import type { McpServer, ToolCallback } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { CommandInput } from "../backend/cairn-backend.ts";
import { withIdempotencyKey } from "../retries.ts";
import type { ToolDeps } from "./tool-deps.ts";
import { idempotencyKeyArg } from "./tool-inputs.ts";
import { runTool } from "./tool-result.ts";
import { writeOutcomeResult } from "./write-outcome.ts";

export type WriteToolSpec<Shape extends z.ZodRawShape, N extends IngestCommandName> = {
  name: string;
  title: string;
  description: string;
  inputSchema: Shape;
  annotations: ToolAnnotations;
  command: N;
  /** The tool's snake_case arguments as the command's camelCase input. */
  toCommand: (args: z.output<z.ZodObject<Shape>>, deps: ToolDeps) => Partial<CommandInput<N>>;
  /** How the answer to a done write begins, e.g. "Created the memory". */
  done: string;
};

type IdempotencyArg = { idempotency_key?: string | undefined };

/** Registers a tool that sends one command; a dry run's answer says to call the same tool again. */
export function registerWriteTool<Shape extends z.ZodRawShape, N extends IngestCommandName>(
  server: McpServer,
  deps: ToolDeps,
  spec: WriteToolSpec<Shape, N>,
): void {
  const { name, title, description, annotations } = spec;
  const inputSchema = { ...spec.inputSchema, idempotency_key: idempotencyKeyArg };
  const run = ({ idempotency_key: idempotencyKey, ...args }: z.output<z.ZodObject<Shape>> & IdempotencyArg) =>
    runTool(
      async () => {
        const command = withIdempotencyKey(
          spec.toCommand(args as z.output<z.ZodObject<Shape>>, deps),
          idempotencyKey,
        );
        const outcome = await deps.ops.write(deps.caller, spec.command, command);
        return writeOutcomeResult(outcome, spec.done, name);
      },
      { idempotencyKey },
    );
  // The SDK types a callback with a conditional type TypeScript cannot resolve for a generic
  // shape; the arguments it passes are `inputSchema`'s parsed output all the same.
  const callback = run as unknown as ToolCallback<typeof inputSchema>;
  server.registerTool(name, { title, description, inputSchema, annotations }, callback);
}
