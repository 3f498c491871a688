import { z } from "zod";

/** The codes a command that writes can be refused with, besides `validation_failed`. */
export const writeErrorCodes = [
  "unknown_field",
  "too_large",
  "secret_detected",
  "not_found",
  "version_conflict",
  "slot_taken",
  "duplicate_content",
  "illegal_transition",
  "precondition_required",
  "token_invalid",
  "forbidden",
  /** A retry reused an idempotency key with a different request than the one it first carried. */
  "idempotency_conflict",
] as const;

/**
 * Stable error codes. They cross every boundary (NATS replies, REST problem+json, MCP tool
 * results), so a code is never renamed or reused for another meaning.
 */
export const errorCodes = [
  "validation_failed",
  ...writeErrorCodes,
  /** The request body is not in a format the route reads (REST: not JSON). */
  "unsupported_media_type",
  /** The path does not answer this HTTP method (MCP: no server-sent stream on GET). */
  "method_not_allowed",
  "unauthenticated",
  "rate_limited",
  "timeout",
  "unavailable",
  "internal",
] as const;

export const ErrorCodeSchema = z.enum(errorCodes);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ErrorBodySchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  hint: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export type CairnErrorOptions = {
  hint?: string | undefined;
  details?: Record<string, unknown> | undefined;
  cause?: unknown;
};

/** An error with a stable code that any service can raise and any edge can translate. */
export class CairnError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: CairnErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CairnError";
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  toBody(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint === undefined ? {} : { hint: this.hint }),
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }

  static fromBody(body: ErrorBody): CairnError {
    return new CairnError(body.code, body.message, { hint: body.hint, details: body.details });
  }
}

export function isCairnError(error: unknown): error is CairnError {
  return error instanceof CairnError;
}
