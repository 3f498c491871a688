import type { Logger } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { registerHealthRoutes } from "./rest/routes/health.ts";

export type HttpServerDeps = {
  nc: NatsConnection;
  logger: Logger;
  checks: Record<string, () => Promise<void>>;
};

/** The gateway's HTTP surface, kept apart from `main.ts` so tests can start it on any port. */
export async function createHttpServer(deps: HttpServerDeps): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    disableRequestLogging: true,
    bodyLimit: 1024 * 1024,
  });
  registerHealthRoutes(app, { nc: deps.nc, checks: deps.checks });
  await app.ready();
  return app;
}
