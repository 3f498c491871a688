import { serveRpc } from "@cairn/bus";
import {
  ContentKeysRequestSchema,
  contentKeysReply,
  contentKeysSubject,
  ingestCommandNames,
  ingestSubject,
  type MaintenanceCommandName,
  maintenanceCommandSchemas,
  maintenanceCommandSubject,
  queueGroup,
} from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import { z } from "zod";
import type { IngestDeps } from "./command-context.ts";
import { reportDatabaseOutage } from "./database-unavailable.ts";
import { executeIngestCommand } from "./execute-ingest-command.ts";
import { executeMaintenanceCommand } from "./execute-maintenance-command.ts";

// Validation happens in executeIngestCommand, which reports unknown fields and limits with
// their own codes; the bus only decodes the JSON.
const anyPayload = z.unknown();

/** Answers `cairn.ingest.<command>` for every command, in the ingest queue group. */
export function serveIngestCommands(nc: NatsConnection, deps: IngestDeps, logger: Logger): Subscription[] {
  const agentCommands = ingestCommandNames.map((name) =>
    serveRpc(nc, {
      subject: ingestSubject(name),
      queue: queueGroup("ingest"),
      schema: anyPayload,
      handler: (payload) => reportDatabaseOutage(() => executeIngestCommand(deps, name, payload)),
      logger,
    }),
  );
  const maintenanceCommands = (Object.keys(maintenanceCommandSchemas) as MaintenanceCommandName[]).map(
    (name) =>
      serveRpc(nc, {
        subject: maintenanceCommandSubject(name),
        queue: queueGroup("ingest"),
        schema: anyPayload,
        handler: (payload) => reportDatabaseOutage(() => executeMaintenanceCommand(deps, name, payload)),
        logger,
      }),
  );
  // Content keys for projections that do not reach Postgres themselves (ranking).
  const keys = deps.keys;
  const contentKeys = keys
    ? [
        serveRpc(nc, {
          subject: contentKeysSubject,
          queue: queueGroup("ingest"),
          schema: ContentKeysRequestSchema,
          handler: async (request) => contentKeysReply(await keys.keysFor(request.memoryIds)),
          logger,
        }),
      ]
    : [];
  return [...agentCommands, ...maintenanceCommands, ...contentKeys];
}
