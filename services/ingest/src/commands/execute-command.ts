import type { CommandName, IngestReply } from "@cairn/contracts";
import { getTracer, startSpan } from "@cairn/telemetry";
import { CommandContext, type IngestDeps } from "./command-context.ts";
import { type IngestHandler, ingestHandlers } from "./ingest-handlers.ts";
import { type MaintenanceHandlers, maintenanceHandlers } from "./maintenance-commands.ts";
import { refuseSecrets } from "./refuse-secrets.ts";

const tracer = getTracer("@cairn/ingest");

const handlers = { ...ingestHandlers, ...maintenanceHandlers } as Record<
  CommandName,
  IngestHandler<never> | MaintenanceHandlers[keyof MaintenanceHandlers]
>;

/**
 * Runs one command (validated against its schema by the bus): secret detection, an idempotent
 * retry's earlier result, then the command's handler.
 */
export async function executeCommand(
  deps: IngestDeps,
  name: CommandName,
  command: { principal: CommandContext["principal"] } & Record<string, unknown>,
): Promise<IngestReply> {
  return startSpan(tracer, `ingest ${name}`, async (span) => {
    refuseSecrets(command);
    span.setAttribute("cairn.tenant", command.principal.tenant);
    const ctx = new CommandContext(deps, name, command);
    const isDryRun = command.dryRun === true;
    if (!isDryRun) {
      const previous = await ctx.previousResult();
      if (previous) return previous;
    }
    const handler = handlers[name] as (ctx: CommandContext, command: unknown) => Promise<IngestReply>;
    const reply = await handler(ctx, command);
    if ("position" in reply) span.setAttribute("cairn.position", reply.position);
    return reply;
  });
}
