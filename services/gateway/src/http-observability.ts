// What the gateway reports about each HTTP request: its route on the server span (so traces
// group by `POST /v1/memories`, not by URL), the caller's tenant and agent on it, and the
// request rate, errors and latency per route in `cairn_http_requests_total` and
// `cairn_http_request_duration_seconds`. It also serves the process's `/metrics`.
import { type Metrics, setHttpRoute, trace } from "@cairn/telemetry";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { callMetrics } from "./gateway-metrics.ts";
import type { CallerLookup } from "./rest/register-routes.ts";
import { defineRoute, type RouteSpec } from "./rest/route-spec.ts";

const { calls: requests, duration } = callMetrics(
  ["cairn_http_requests", "HTTP requests answered by the gateway, by method, route and status"],
  ["cairn_http_request_duration_seconds", "HTTP request latency at the gateway, by method, route and status"],
);

/** The route template a request matched; `unmatched` for a 404 (never the raw URL). */
function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? "unmatched";
}

export function registerHttpObservability(
  app: FastifyInstance,
  deps: { callerOf: CallerLookup; metrics?: Pick<Metrics, "handle"> | undefined },
): void {
  app.addHook("onRequest", async (request) => {
    setHttpRoute(routeOf(request));
  });
  // After the request guard's onRequest hooks: the caller is known.
  app.addHook("preHandler", async (request) => {
    const caller = deps.callerOf(request);
    if (!caller) return;
    trace.getActiveSpan()?.setAttributes({
      "cairn.tenant": caller.principal.tenant,
      "cairn.agent": caller.principal.agent,
    });
  });
  app.addHook("onResponse", async (request, reply) => {
    const labels = { method: request.method, route: routeOf(request), status: String(reply.statusCode) };
    requests.add(1, labels);
    duration.record(reply.elapsedTime / 1000, labels);
  });
  const metrics = deps.metrics;
  if (metrics) {
    app.get("/metrics", (request, reply) => {
      reply.hijack();
      metrics.handle(request.raw, reply.raw);
    });
  }
}

/** `/metrics` in the OpenAPI document, when the gateway serves it. */
export const metricsRouteDoc: RouteSpec = defineRoute({
  method: "GET",
  path: "/metrics",
  operationId: "metrics",
  summary: "Metrics of this process in the Prometheus text format",
  tag: "health",
  public: true,
  success: { status: 200, description: "Prometheus text exposition" },
  handler: async () => "",
});
