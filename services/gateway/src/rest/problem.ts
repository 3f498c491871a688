import { CairnError, type ErrorCode } from "@cairn/contracts";
import type { FastifyReply } from "fastify";
import { ZodError } from "zod";

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
  unauthenticated: "Authentication required",
  rate_limited: "Too many requests",
  timeout: "A service did not answer in time",
  unavailable: "A service is unavailable",
  internal: "Internal error",
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
  const fastify = error as { statusCode?: number; code?: string; message?: string };
  if (fastify.statusCode === 413 || fastify.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return new CairnError("too_large", "the request body is larger than the gateway accepts", {
      hint: "send less at once: split large content into several memories",
    });
  }
  if (fastify.statusCode !== undefined && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return new CairnError("validation_failed", fastify.message ?? "bad request", { cause: error });
  }
  return new CairnError("internal", "internal error", { cause: error });
}

export function toProblem(error: CairnError, instance?: string): Problem {
  return {
    type: `urn:cairn:error:${error.code}`,
    title: titles[error.code],
    status: httpStatusOf[error.code],
    detail: error.message,
    code: error.code,
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    ...(error.details === undefined ? {} : { details: error.details }),
    ...(instance === undefined ? {} : { instance }),
  };
}

/** Sends an error as `application/problem+json` (RFC 9457) with its stable code. */
export function sendProblem(reply: FastifyReply, error: unknown, instance?: string): FastifyReply {
  const problem = toProblem(asCairnError(error), instance);
  return reply.code(problem.status).type("application/problem+json").send(problem);
}
