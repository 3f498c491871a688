import { CairnError } from "@cairn/contracts";
import type { Logger, Metrics } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import type pg from "pg";
import type { AuthFailureThrottle } from "./auth/auth-failure-throttle.ts";
import type { Authenticator } from "./auth/authenticator.ts";
import type { HostPolicy, OriginPolicy } from "./auth/origin-policy.ts";
import type { RateLimiter } from "./auth/rate-limiter.ts";
import { callerOf, registerRequestGuard } from "./auth/request-guard.ts";
import { createCairnBackend } from "./backend/cairn-backend.ts";
import { consoleRoutes } from "./console/serve-console.ts";
import { answerClientError, answerFrameworkError, registerHttpHardening } from "./http-hardening.ts";
import { metricsRouteDoc, registerHttpObservability } from "./http-observability.ts";
import { registerMcpRoute } from "./mcp/mcp-http-route.ts";
import type { McpSessionStore } from "./mcp/mcp-session-store.ts";
import { createWritePositions, type WritePositions } from "./operations/caller.ts";
import { createOperations, type Operations } from "./operations/create-operations.ts";
import { createRecallRecorder, defaultRecallBatchMs } from "./operations/recall-recorder.ts";
import { createTenantSettingsReader } from "./operations/tenant-settings.ts";
import { buildOpenApiDocument } from "./rest/openapi-document.ts";
import { instanceOf, logIfInternal, sendProblem } from "./rest/problem.ts";
import { registerRoutes } from "./rest/register-routes.ts";
import type { RouteSpec } from "./rest/route-spec.ts";
import { apiKeyRoutes } from "./rest/routes/api-keys.ts";
import { contextRoutes } from "./rest/routes/context.ts";
import { eventRoutes } from "./rest/routes/events.ts";
import { exportRoutes } from "./rest/routes/export.ts";
import { feedbackRoutes } from "./rest/routes/feedback.ts";
import { handoffRoutes } from "./rest/routes/handoffs.ts";
import { registerHealthRoutes } from "./rest/routes/health.ts";
import { type ImportLimits, importRoutes } from "./rest/routes/import.ts";
import { keyRoutes } from "./rest/routes/keys.ts";
import { maintenanceRoutes } from "./rest/routes/maintenance.ts";
import { memoryRoutes } from "./rest/routes/memories.ts";
import { healthRouteDocs, openApiRoute } from "./rest/routes/openapi.ts";
import { proposalRoutes } from "./rest/routes/proposals.ts";
import { settingsRoutes } from "./rest/routes/settings.ts";
import { statusRoutes } from "./rest/routes/status.ts";

export type HttpServerDeps = {
  nc: NatsConnection;
  logger: Logger;
  checks: Record<string, () => Promise<void>>;
  pool: pg.Pool;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  originPolicy: OriginPolicy;
  /** The `Host` check of /mcp (default: loopback names and IP addresses). */
  hostPolicy?: HostPolicy;
  /** Wrong API keys per client address (default: not throttled). */
  authFailureThrottle?: AuthFailureThrottle;
  /** Fastify's `trustProxy`: whose `X-Forwarded-For` gives the client address (default: nobody's). */
  trustProxy?: boolean | string;
  bodyLimitBytes?: number;
  /** What `POST /v1/import` takes (default 32 MiB, unpacking to 256 MiB in 20,000 files at most). */
  importLimits?: ImportLimits;
  backendTimeoutMs?: number;
  rerankCandidates?: number;
  /** How long a caller's recall records are gathered before they are sent (default 250 ms). */
  recallBatchMs?: number;
  mcpSessionIdleMs?: number;
  /** Where MCP sessions are kept (default: this process's memory; the service shares them in Redis). */
  mcpSessions?: McpSessionStore | undefined;
  /** The callers' last write positions (default: this process's memory; the service shares them in Redis). */
  positions?: WritePositions | undefined;
  version?: string;
  /** Serves the process's metrics at `/metrics` on this server (the gateway's own port). */
  metrics?: Pick<Metrics, "handle"> | undefined;
};

export const openApiInfo = (version: string) => ({
  title: "Cairn",
  version,
  description:
    "Shared long-term memory for LLM agents. Authenticate with `Authorization: Bearer <API key>`. " +
    "Errors are `application/problem+json` with a stable `code`. Writes return the log `position`; " +
    "reads take `consistency=strong` (or `afterPosition`) to see them.",
});

/** Every REST route of `/v1`, declared once (see rest/route-spec.ts). */
export const defaultImportLimits: ImportLimits = {
  maxBytes: 32 * 1024 * 1024,
  maxUnpackedBytes: 256 * 1024 * 1024,
  maxFiles: 20_000,
};

export function restRoutes(
  ops: Operations,
  pool: pg.Pool,
  authenticator: Authenticator,
  importLimits: ImportLimits = defaultImportLimits,
): RouteSpec[] {
  return [
    ...memoryRoutes(ops),
    ...contextRoutes(ops),
    ...proposalRoutes(ops),
    ...handoffRoutes(ops),
    ...keyRoutes(ops),
    ...feedbackRoutes(),
    ...statusRoutes(ops),
    ...apiKeyRoutes(pool, authenticator),
    ...eventRoutes(ops, pool),
    ...settingsRoutes(ops),
    ...exportRoutes(ops),
    ...importRoutes(ops, importLimits),
  ];
}

const registeredRoutes = new WeakMap<FastifyInstance, { method: string; url: string }[]>();

/** Every method and URL the server answers (for checking the OpenAPI document against it). */
export function routesOf(app: FastifyInstance): { method: string; url: string }[] {
  return registeredRoutes.get(app) ?? [];
}

/** The gateway's HTTP surface, kept apart from `main.ts` so tests can start it on any port. */
export async function createHttpServer(deps: HttpServerDeps): Promise<FastifyInstance> {
  const version = deps.version ?? "0.1.0";
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Requests are logged once, by the observability hooks (route, status, duration, caller).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes ?? 1024 * 1024,
    trustProxy: deps.trustProxy ?? false,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  registerHttpHardening(app);
  const seen: { method: string; url: string }[] = [];
  registeredRoutes.set(app, seen);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) seen.push({ method: String(method), url: route.url });
  });
  const backend = createCairnBackend(deps.nc, { timeoutMs: deps.backendTimeoutMs, logger: deps.logger });
  const recalls = createRecallRecorder(backend, {
    batchMs: deps.recallBatchMs ?? defaultRecallBatchMs,
    logger: deps.logger,
  });
  // What was gathered is sent before the server's connections go.
  app.addHook("onClose", () => recalls.flush());
  const ops = createOperations({
    backend,
    positions: deps.positions ?? createWritePositions(),
    recalls,
    logger: deps.logger,
    rerankCandidates: deps.rerankCandidates,
    tenantSettings: createTenantSettingsReader(deps.pool),
  });

  app.setErrorHandler((error, request, reply) => {
    logIfInternal(request, error, callerOf(request)?.principal);
    return sendProblem(reply, error, instanceOf(request.url));
  });
  // No route matched, so the path names nothing of Cairn's: it is not repeated (it may hold
  // what a client should not have sent in a URL).
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new CairnError("not_found", `no route for ${request.method} at this path`, {
        hint: "see /openapi.json for the routes",
      }),
    ),
  );

  registerRequestGuard(app, deps);
  registerHttpObservability(app, { callerOf, metrics: deps.metrics });
  registerHealthRoutes(app, { nc: deps.nc, checks: deps.checks });
  const routes = [
    ...restRoutes(ops, deps.pool, deps.authenticator, deps.importLimits),
    ...maintenanceRoutes(deps.nc),
    ...consoleRoutes(),
  ];
  let document: Record<string, unknown> | undefined;
  const openapi = openApiRoute(() => {
    const operational = deps.metrics ? [...healthRouteDocs, metricsRouteDoc] : healthRouteDocs;
    document ??= buildOpenApiDocument([...operational, openapi, ...routes], openApiInfo(version));
    return document;
  });
  registerRoutes(app, [...routes, openapi], { callerOf, ops });
  registerMcpRoute(app, {
    ops,
    callerOf,
    logger: deps.logger,
    sessionIdleMs: deps.mcpSessionIdleMs ?? 30 * 60_000,
    sessions: deps.mcpSessions,
    version,
  });
  await app.ready();
  return app;
}
