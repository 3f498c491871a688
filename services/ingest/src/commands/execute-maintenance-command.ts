import { type IngestReply, type MaintenanceCommandName, maintenanceCommandSchemas } from "@cairn/contracts";
import { getTracer, startSpan } from "@cairn/telemetry";
import { CommandContext, type IngestDeps } from "./command-context.ts";
import { type MaintenanceHandlers, maintenanceHandlers } from "./maintenance-commands.ts";
import { parseAgainst, refuseSecrets } from "./parse-command.ts";

const tracer = getTracer("@cairn/ingest");

/** Runs one maintenance command from its raw payload, exactly like `executeIngestCommand`. */
export async function executeMaintenanceCommand(
  deps: IngestDeps,
  name: MaintenanceCommandName,
  payload: unknown,
): Promise<IngestReply> {
  return startSpan(tracer, `ingest ${name}`, async (span) => {
    const command = parseAgainst(name, maintenanceCommandSchemas[name], payload);
    refuseSecrets(command as Record<string, unknown>);
    span.setAttribute("cairn.tenant", command.principal.tenant);
    const ctx = new CommandContext(deps, name, command);
    const isDryRun = "dryRun" in command && command.dryRun === true;
    if (!isDryRun) {
      const previous = await ctx.previousResult();
      if (previous) return previous;
    }
    const handler = maintenanceHandlers[name] as MaintenanceHandlers[typeof name];
    const reply = await handler(ctx, command as never);
    if ("position" in reply) span.setAttribute("cairn.position", reply.position);
    return reply;
  });
}
