import type { RouteSpec } from "../route-spec.ts";
import { defineRoute } from "../route-spec.ts";

/** `/healthz` and `/readyz` are registered by health.ts; declared here so the document lists them. */
export const healthRouteDocs: RouteSpec[] = [
  defineRoute({
    method: "GET",
    path: "/healthz",
    operationId: "healthz",
    summary: "The gateway process is alive",
    tag: "health",
    public: true,
    success: { status: 200, description: "Alive" },
    handler: async () => ({ status: "ok" }),
  }),
  defineRoute({
    method: "GET",
    path: "/readyz",
    operationId: "readyz",
    summary: "Postgres, Redis, NATS and every service answer",
    tag: "health",
    public: true,
    success: { status: 200, description: "Ready (503 with the failing checks otherwise)" },
    handler: async () => ({ status: "ready" }),
  }),
];

export function openApiRoute(document: () => Record<string, unknown>): RouteSpec {
  return defineRoute({
    method: "GET",
    path: "/openapi.json",
    operationId: "openapi",
    summary: "This document (OpenAPI 3.1)",
    tag: "health",
    public: true,
    success: { status: 200, description: "The OpenAPI document" },
    handler: async () => document(),
  });
}
