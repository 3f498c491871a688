import type { IncomingMessage } from "node:http";
import { CairnError } from "@cairn/contracts";
import { withLogFields } from "@cairn/telemetry";
import type { FastifyInstance, FastifyRequest, RouteOptions } from "fastify";
import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";
import { idempotencyKeyOf, withIdempotencyKey, writeRetryHint } from "../retries.ts";
import { asCairnError, instanceOf, logIfInternal, sendProblem } from "./problem.ts";
import type { RouteContext, RouteSpec, UploadSpec } from "./route-spec.ts";

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

/**
 * The body of a route that takes a file: its bytes, whatever the media type, refused as soon as
 * they pass `maxBytes` (Content-Length is checked before a byte is read).
 */
function readUpload(upload: UploadSpec) {
  const tooLarge = () =>
    new CairnError("too_large", `the file is larger than the ${upload.maxBytes} bytes this route accepts`, {
      hint: "send a smaller file (split it), or import it from the command line (`pnpm cairn import`)",
      details: { maxBytes: upload.maxBytes },
    });
  return (
    request: FastifyRequest,
    payload: IncomingMessage,
    done: (err: Error | null, body?: Buffer) => void,
  ) => {
    const declared = Number(request.headers["content-length"]);
    if (Number.isFinite(declared) && declared > upload.maxBytes) {
      payload.resume();
      done(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (error: Error | null, body?: Buffer) => {
      if (settled) return;
      settled = true;
      done(error, body);
    };
    payload.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > upload.maxBytes) {
        chunks.length = 0;
        settle(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    payload.on("end", () => settle(null, Buffer.concat(chunks)));
    payload.on("error", (error) => settle(error));
  };
}

export function registerRoutes(
  app: FastifyInstance,
  routes: readonly RouteSpec[],
  deps: RegisterRoutesDeps,
): void {
  for (const route of routes) {
    const options = routeOptions(route, deps);
    const upload = route.upload;
    if (!upload) {
      app.route(options);
      continue;
    }
    // Its own parsers in a context of its own: every other route still reads only JSON (415).
    app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser("*", readUpload(upload));
      scope.route({ ...options, bodyLimit: upload.maxBytes });
    });
  }
}

function routeOptions(route: RouteSpec, deps: RegisterRoutesDeps): RouteOptions {
  return {
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
        const body = route.upload
          ? uploadedBody(request.body)
          : route.body
            ? route.body.parse(request.body ?? {})
            : undefined;
        const ifMatch = route.ifMatch ? parseIfMatch(request.headers["if-match"]) : undefined;
        if (takesIdempotencyKey(route)) idempotencyKey = idempotencyKeyOf(request.headers["idempotency-key"]);
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
  };
}

/** An upload's bytes; a request without a body is told what to send. */
function uploadedBody(body: unknown): Buffer {
  if (Buffer.isBuffer(body) && body.length > 0) return body;
  throw new CairnError("validation_failed", "the request has no body: this route takes a file as the body", {
    hint: "send the file's bytes as the body (curl --data-binary @file)",
    details: { reason: "no_file" },
  });
}
