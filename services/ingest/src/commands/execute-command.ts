import { type CommandName, type IngestReply, isCairnError } from "@cairn/contracts";
import { isDependencyFailure } from "@cairn/service-runtime";
import { getTracer, startSpan } from "@cairn/telemetry";
import { CommandContext, type IngestDeps } from "./command-context.ts";
import { type IngestHandler, ingestHandlers } from "./ingest-handlers.ts";
import { type MaintenanceHandlers, maintenanceHandlers } from "./maintenance-commands.ts";
import { loadSecretAllowList, refuseSecrets } from "./refuse-secrets.ts";

const tracer = getTracer("@cairn/ingest");

const handlers = { ...ingestHandlers, ...maintenanceHandlers } as Record<
  CommandName,
  IngestHandler<never> | MaintenanceHandlers[keyof MaintenanceHandlers]
>;

/**
 * Runs one command (validated against its schema by the bus): secret detection, an idempotent
 * retry's earlier result (or `idempotency_conflict`), then the command's handler.
 */
export async function executeCommand(
  deps: IngestDeps,
  name: CommandName,
  command: { principal: CommandContext["principal"] } & Record<string, unknown>,
): Promise<IngestReply> {
  return startSpan(tracer, `ingest ${name}`, async (span) => {
    await refuseSecrets(command, () => loadSecretAllowList(deps.store, command.principal.tenant));
    span.setAttribute("cairn.tenant", command.principal.tenant);
    const ctx = new CommandContext(deps, name, command);
    const isDryRun = command.dryRun === true;
    if (!isDryRun) {
      const previous = await ctx.previousResult();
      if (previous) return previous;
    }
    const handler = handlers[name] as (ctx: CommandContext, command: unknown) => Promise<IngestReply>;
    let reply: IngestReply;
    try {
      reply = await handler(ctx, command);
    } catch (error) {
      // A retry that raced the first attempt with its key finds the state that attempt left
      // (a moved version, a taken slot): it answers the first attempt's result instead.
      const raced = !isDryRun && isCairnError(error) && !isDependencyFailure(error);
      const previous = raced ? await ctx.previousResult() : undefined;
      if (!previous) throw error;
      reply = previous;
    }
    if ("position" in reply) span.setAttribute("cairn.position", reply.position);
    return reply;
  });
}
