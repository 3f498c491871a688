// How a client retries safely, the same on REST and MCP: the idempotency key it sends with a
// write (checked here once, passed to ingest's `idempotencyKey`), how long it waits after an
// outage (`Retry-After`), and hints that name the mechanism of the surface it uses.
import { CairnError, type ErrorCode } from "@cairn/contracts";
import { z } from "zod";

/**
 * A client's idempotency key: 1-200 visible ASCII characters (a UUID, a hash, a request
 * counter). The bus takes up to 200; no spaces or commas, so two keys cannot pass as one.
 */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "must be visible ASCII characters: letters, digits and punctuation, no spaces");

const keyRule = "1-200 visible ASCII characters (letters, digits, punctuation; no spaces or commas)";

/**
 * The `Idempotency-Key` header's value, or undefined without one. The draft standard writes it
 * as a quoted string (`"8e03978e-…"`); a bare token is taken too. Refused with a 422 that
 * states the rule and never repeats the value.
 */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const raw = Array.isArray(header) ? header.join(", ") : header;
  const trimmed = raw.trim();
  const value = /^"[^"]*"$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
  if (!value.includes(",") && IdempotencyKeySchema.safeParse(value).success) return value;
  throw new CairnError("validation_failed", `Idempotency-Key must be one key of ${keyRule}`, {
    hint: "send one key per request, e.g. a UUID: the same on every retry of a write, a new one for the next write",
    details: { header: "Idempotency-Key" },
  });
}

/** The input of an ingest command with the caller's idempotency key, when it sent one. */
export function withIdempotencyKey<T extends object>(input: T, key: string | undefined): T {
  return key === undefined ? input : { ...input, idempotencyKey: key };
}

/**
 * How each surface names the key: the services' hints speak of the bus field `idempotencyKey`
 * or of "an idempotency key" in general.
 */
export type RetrySurface = "rest" | "mcp";

const mechanismOf: Record<RetrySurface, string> = {
  rest: "`Idempotency-Key` header",
  mcp: "`idempotency_key` argument",
};

/** A hint from a service, in the words of the surface that shows it. */
export function hintForSurface(hint: string | undefined, surface: RetrySurface): string | undefined {
  return hint?.replace(/`?\bidempotency(?:Key| key)\b`?/gi, mechanismOf[surface]);
}

/** Seconds a client waits before retrying after a failure of Cairn's (`Retry-After`). */
const retryAfterSeconds: Partial<Record<ErrorCode, number>> = { unavailable: 3, timeout: 3, internal: 5 };

/** When to retry: what the error says (a rate limit knows), or the wait for its code. */
export function retryAfterOf(error: CairnError): number | undefined {
  const stated = error.details?.retryAfterSeconds;
  if (typeof stated === "number" && Number.isFinite(stated) && stated > 0) return Math.ceil(stated);
  return retryAfterSeconds[error.code];
}

/** The fallback `Retry-After` for a 5xx answer that carries no error of its own (`/readyz`). */
export const defaultRetryAfterSeconds = 3;

/**
 * The hint of a write that failed with an outage or a timeout: the write may have landed, so
 * the retry must carry the same key, or (without one) the caller learns how to make it safe.
 */
export function writeRetryHint(
  error: CairnError,
  surface: RetrySurface,
  idempotencyKey: string | undefined,
): string | undefined {
  if (error.code !== "unavailable" && error.code !== "timeout") return undefined;
  const wait = `retry after ${retryAfterOf(error) ?? defaultRetryAfterSeconds} s`;
  const mechanism = mechanismOf[surface];
  return idempotencyKey === undefined
    ? `${wait}; the write may have landed: first read whether it did, and send an ${mechanism} (the same on every retry) with writes so a retry never writes twice`
    : `${wait} with the same ${mechanism}: a write that did land is answered again, not repeated`;
}
