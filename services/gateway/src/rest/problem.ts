import { CairnError, type ErrorCode, type Principal } from "@cairn/contracts";
import { isDependencyFailure } from "@cairn/service-runtime";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ZodError } from "zod";
import { hintForSurface, retryAfterOf } from "../retries.ts";

/** Each stable code's HTTP status. */
export const httpStatusOf: Record<ErrorCode, number> = {
  validation_failed: 422,
  unknown_field: 422,
  too_large: 413,
  secret_detected: 422,
  not_found: 404,
  version_conflict: 409,
  slot_taken: 409,
  duplicate_content: 409,
  illegal_transition: 409,
  precondition_required: 412,
  token_invalid: 409,
  forbidden: 403,
  idempotency_conflict: 409,
  unsupported_media_type: 415,
  method_not_allowed: 405,
  unauthenticated: 401,
  rate_limited: 429,
  timeout: 504,
  unavailable: 503,
  internal: 500,
};

const titles: Record<ErrorCode, string> = {
  validation_failed: "The request is not valid",
  unknown_field: "The request has unknown fields",
  too_large: "The request is too large",
  secret_detected: "The content contains a secret",
  not_found: "Not found",
  version_conflict: "The version has moved",
  slot_taken: "The slot is taken",
  duplicate_content: "The content is already stored",
  illegal_transition: "Not allowed in the current state",
  precondition_required: "A precondition is required",
  token_invalid: "The confirmation token is not valid",
  forbidden: "Forbidden",
  idempotency_conflict: "The idempotency key was used for another request",
  unsupported_media_type: "The body is not JSON",
  method_not_allowed: "The method is not allowed here",
  unauthenticated: "Authentication required",
  rate_limited: "Too many requests",
  timeout: "A service did not answer in time",
  unavailable: "A service is unavailable",
  internal: "Internal error",
};

/** Hints for codes a service may raise without one, in REST's words. */
const restHints: Partial<Record<ErrorCode, string>> = {
  idempotency_conflict:
    "this Idempotency-Key was sent before with another request: send a new key for a new write, or repeat the first request exactly to get its answer",
};

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  hint?: string;
  details?: Record<string, unknown>;
  instance?: string;
};

/** Any error as a CairnError: zod issues are `validation_failed`, Fastify's own errors keep their meaning. */
export function asCairnError(error: unknown): CairnError {
  if (error instanceof CairnError) return error;
  if (error instanceof ZodError) {
    const unknownKeys = error.issues.some((i) => i.code === "unrecognized_keys");
    return new CairnError(
      unknownKeys ? "unknown_field" : "validation_failed",
      "the request does not match its schema",
      {
        details: {
          issues: error.issues.map((i) => ({ path: i.path.join("."), message: i.message, code: i.code })),
        },
        hint: "fix the fields listed in details",
      },
    );
  }
  const fastify = error as { statusCode?: number; code?: string };
  const known = fastify.code === undefined ? undefined : fastifyErrors[fastify.code];
  if (known) return new CairnError(known[0], known[1], { hint: known[2], cause: error });
  if (fastify.statusCode !== undefined && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    // The framework's own message can quote the URL or the body: only its code is passed on.
    return new CairnError("validation_failed", "the request could not be read", {
      hint: "check the URL, the headers and the body against /openapi.json",
      ...(fastify.code === undefined ? {} : { details: { reason: fastify.code } }),
      cause: error,
    });
  }
  if (isDependencyFailure(error)) {
    return new CairnError("unavailable", "a store the gateway depends on cannot be reached right now", {
      hint: "retry shortly",
      cause: error,
    });
  }
  return new CairnError("internal", "internal error", { cause: error });
}

/**
 * Fastify's own refusals, each with a stable code, and a message and hint of the gateway's:
 * theirs quote the path (`'/v1/%' is not a valid url component`), which may hold a secret.
 */
const fastifyErrors: Record<string, [ErrorCode, string, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [
    "too_large",
    "the request body is larger than the gateway accepts",
    "send less at once: split large content into several memories",
  ],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [
    "unsupported_media_type",
    "the request body must be JSON",
    "send the body as JSON with `Content-Type: application/json`",
  ],
  FST_ERR_CTP_INVALID_JSON_BODY: [
    "validation_failed",
    "the request body is not valid JSON",
    "send one JSON object, as /openapi.json describes for the route",
  ],
  FST_ERR_CTP_EMPTY_JSON_BODY: [
    "validation_failed",
    "the body is empty although Content-Type says JSON",
    "send a JSON object, or leave out Content-Type when there is no body",
  ],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [
    "validation_failed",
    "the Content-Length does not match the body",
    "send the body's length in bytes, or let the HTTP client set it",
  ],
  FST_ERR_BAD_URL: [
    "validation_failed",
    "the URL is not valid: a percent-encoding in it is malformed",
    "percent-encode path parameters (encodeURIComponent)",
  ],
  FST_ERR_MAX_PARAM_LENGTH: [
    "validation_failed",
    "a path parameter is longer than the gateway accepts",
    "ids are UUIDs and key labels at most 200 characters",
  ],
};

export function toProblem(error: CairnError, instance?: string): Problem {
  const hint = hintForSurface(error.hint, "rest") ?? restHints[error.code];
  return {
    type: `urn:cairn:error:${error.code}`,
    title: titles[error.code],
    status: httpStatusOf[error.code],
    detail: error.message,
    code: error.code,
    ...(hint === undefined ? {} : { hint }),
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(instance === undefined ? {} : { instance }),
  };
}

/** A failure of Cairn's own goes to the log with its cause (the client sees only `internal`). */
export function logIfInternal(
  request: FastifyRequest,
  error: unknown,
  principal: Principal | undefined,
): void {
  if (asCairnError(error).code !== "internal") return;
  request.log.error(
    {
      err: error,
      route: request.routeOptions.url ?? "unmatched",
      ...(principal ? { tenant: principal.tenant, agent: principal.agent } : {}),
    },
    "request failed",
  );
}

/** The `instance` of a request's problem: its path, never its query (a `reason` may hold a secret). */
export function instanceOf(url: string): string {
  return url.split("?", 1)[0] ?? "";
}

/**
 * Sends an error as `application/problem+json` (RFC 9457) with its stable code; an outage, a
 * timeout or a failure of Cairn's says when to retry (`Retry-After`, seconds).
 */
export function sendProblem(reply: FastifyReply, error: unknown, instance?: string): FastifyReply {
  const cairn = asCairnError(error);
  const problem = toProblem(cairn, instance);
  const retryAfter = retryAfterOf(cairn);
  if (retryAfter !== undefined && !reply.hasHeader("retry-after"))
    reply.header("Retry-After", String(retryAfter));
  return reply.code(problem.status).type("application/problem+json").send(problem);
}
