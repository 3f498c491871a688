import { CairnError } from "@cairn/contracts";
import { withLogFields } from "@cairn/telemetry";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";
import { idempotencyKeyOf, withIdempotencyKey, writeRetryHint } from "../retries.ts";
import { asCairnError, instanceOf, logIfInternal, sendProblem } from "./problem.ts";
import type { RouteContext, RouteSpec } from "./route-spec.ts";

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
    throw new CairnError("validation_failed", "If-Match must be a version number", {
      hint: 'send `If-Match: "<version>"` with the version you read',
    });
  }
  return version;
}

export type CallerLookup = (request: FastifyRequest) => Caller | undefined;

/** Whether a route reads `Idempotency-Key`: every write that does not opt out. */
export function takesIdempotencyKey(route: RouteSpec): boolean {
  return route.method !== "GET" && !route.public && route.idempotent !== false;
}

export type RegisterRoutesDeps = { callerOf: CallerLookup; ops: Operations };

/**
 * A write that reached ingest and failed with an outage or a timeout may have landed: its
 * hint says how to retry it safely (with the same `Idempotency-Key`).
 */
function withWriteRetryHint(error: unknown, idempotencyKey: string | undefined): unknown {
  const cairn = asCairnError(error);
  const hint = writeRetryHint(cairn, "rest", idempotencyKey);
  if (hint === undefined) return cairn;
  return new CairnError(cairn.code, cairn.message, { hint, details: cairn.details, cause: cairn.cause });
}

export function registerRoutes(
  app: FastifyInstance,
  routes: readonly RouteSpec[],
  deps: RegisterRoutesDeps,
): void {
  for (const route of routes) {
    app.route({
      method: route.method,
      url: toFastifyPath(route.path),
      handler: async (request, reply) => {
        let idempotencyKey: string | undefined;
        let wrote = false;
        try {
          const caller = deps.callerOf(request);
          if (!caller && !route.public) {
            throw new CairnError("unauthenticated", "an API key is required", {
              hint: "send `Authorization: Bearer <key>`",
            });
          }
          const params = route.params ? route.params.parse(request.params) : request.params;
          const query = route.query ? route.query.parse(request.query ?? {}) : request.query;
          const body = route.body ? route.body.parse(request.body ?? {}) : undefined;
          const ifMatch = route.ifMatch ? parseIfMatch(request.headers["if-match"]) : undefined;
          if (takesIdempotencyKey(route))
            idempotencyKey = idempotencyKeyOf(request.headers["idempotency-key"]);
          const write: RouteContext<unknown, unknown, unknown>["write"] = (name, input) => {
            wrote = true;
            return deps.ops.write(caller as Caller, name, withIdempotencyKey(input, idempotencyKey));
          };
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
                idempotencyKey,
                write,
                request,
                reply,
              }),
          );
          if (reply.sent) return reply;
          reply.code(route.success.status);
          return result ?? null;
        } catch (error) {
          logIfInternal(request, error, deps.callerOf(request)?.principal);
          return sendProblem(
            reply,
            wrote ? withWriteRetryHint(error, idempotencyKey) : error,
            instanceOf(request.url),
          );
        }
      },
    });
  }
}
