import { CairnError } from "@cairn/contracts";
import { withLogFields } from "@cairn/telemetry";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../operations/caller.ts";
import { sendProblem } from "./problem.ts";
import type { RouteSpec } from "./route-spec.ts";

/** `/v1/memories/{id}` → `/v1/memories/:id`. */
export function toFastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}

/** `If-Match: "3"`, `W/"3"` or `3` → 3. */
export function parseIfMatch(header: string | undefined): number {
  if (header === undefined || header.trim() === "") {
    throw new CairnError("precondition_required", "this change needs the version it applies to", {
      hint: 'send `If-Match: "<version>"` with the version you read (the ETag of the GET)',
    });
  }
  const match = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(header);
  const version = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new CairnError("validation_failed", `If-Match must be a version number, not ${header}`, {
      hint: 'send `If-Match: "<version>"`',
    });
  }
  return version;
}

export type CallerLookup = (request: FastifyRequest) => Caller | undefined;

export function registerRoutes(
  app: FastifyInstance,
  routes: readonly RouteSpec[],
  callerOf: CallerLookup,
): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: toFastifyPath(route.path),
      handler: async (request, reply) => {
        try {
          const caller = callerOf(request);
          if (!caller && !route.public) {
            throw new CairnError("unauthenticated", "an API key is required", {
              hint: "send `Authorization: Bearer <key>`",
            });
          }
          const params = route.params ? route.params.parse(request.params) : request.params;
          const query = route.query ? route.query.parse(request.query ?? {}) : request.query;
          const body = route.body ? route.body.parse(request.body ?? {}) : undefined;
          const ifMatch = route.ifMatch ? parseIfMatch(request.headers["if-match"]) : undefined;
          const principal = caller?.principal;
          const result = await withLogFields(
            principal ? { tenant: principal.tenant, agent: principal.agent } : {},
            () =>
              route.handler({
                caller: caller as Caller,
                params,
                query,
                body,
                ifMatch,
                request,
                reply,
              }),
          );
          if (reply.sent) return reply;
          reply.code(route.success.status);
          return result ?? null;
        } catch (error) {
          return sendProblem(reply, error, request.url);
        }
      },
    });
  }
}
