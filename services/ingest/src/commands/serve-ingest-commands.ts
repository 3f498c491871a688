import { serve } from "@cairn/bus";
import {
  type CommandName,
  commandRpc,
  ingestCommandNames,
  maintenanceCommandSchemas,
  queueGroup,
} from "@cairn/contracts";
import { reportOutage } from "@cairn/service-runtime";
import type { Logger } from "@cairn/telemetry";
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import type { IngestDeps } from "./command-context.ts";
import { executeCommand } from "./execute-command.ts";

const commandNames: CommandName[] = [
  ...ingestCommandNames,
  ...(Object.keys(maintenanceCommandSchemas) as CommandName[]),
];

/**
 * Answers `cairn.ingest.<command>` for every command, in the ingest queue group. A database
 * that cannot be reached is `unavailable`: nothing was written when it happens before the
 * append, and a retry with the same idempotency key cannot write twice when it happens during it.
 */
export function serveIngestCommands(nc: NatsConnection, deps: IngestDeps, logger: Logger): Subscription[] {
  return commandNames.map((name) =>
    serve(
      nc,
      commandRpc(name),
      (command) =>
        reportOutage(
          "the event log (Postgres)",
          () => executeCommand(deps, name, command as Parameters<typeof executeCommand>[2]),
          "retry shortly, with the same idempotencyKey so a write that did land is not repeated",
        ),
      { queue: queueGroup("ingest"), logger },
    ),
  );
}
