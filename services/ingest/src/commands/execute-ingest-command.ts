import type { IngestCommandName, IngestReply } from "@cairn/contracts";
import { getTracer, startSpan } from "@cairn/telemetry";
import { CommandContext, type IngestDeps } from "./command-context.ts";
import { type IngestHandler, ingestHandlers } from "./ingest-handlers.ts";
import { parseCommand, refuseSecrets } from "./parse-command.ts";

const tracer = getTracer("@cairn/ingest");

/**
 * Runs one ingest command from its raw payload: schema and limits, secret detection, an
 * idempotent retry's earlier result, then the command's handler.
 */
export async function executeIngestCommand(
  deps: IngestDeps,
  name: IngestCommandName,
  payload: unknown,
): Promise<IngestReply> {
  return startSpan(tracer, `ingest ${name}`, async (span) => {
    const command = parseCommand(name, payload);
    refuseSecrets(command as Record<string, unknown>);
    span.setAttribute("cairn.tenant", command.principal.tenant);
    const ctx = new CommandContext(deps, name, command);
    const isDryRun = "dryRun" in command && command.dryRun === true;
    if (!isDryRun) {
      const previous = await ctx.previousResult();
      if (previous) return previous;
    }
    const handler = ingestHandlers[name] as IngestHandler<typeof name>;
    const reply = await handler(ctx, command);
    if ("position" in reply) span.setAttribute("cairn.position", reply.position);
    return reply;
  });
}
