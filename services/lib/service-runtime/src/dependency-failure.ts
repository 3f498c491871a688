// Whether a failure is a dependency's (Postgres, Redis, NATS or a remote endpoint away or
// overloaded: answer `unavailable`, retry later) rather than a bug or a refusal. Every service
// classifies with this one rule: ingest before it answers, the projection runtime before it
// counts a failed event towards a dead letter, the gateway before it answers 503.
import { CairnError, isCairnError } from "@cairn/contracts";

const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

// Postgres: connection exceptions (08…), operator intervention (57…: shutdown, cancel),
// insufficient resources (53…), and serialization / deadlock (40001, 40P01), which retry fine.
const postgresTransient = /^(08|57|53)|^40001$|^40P01$/;

// Connections lost or refused; and a RediSearch query that ran out of its time ("Command timed
// out" on 1.x, "Timeout limit was reached" on 2.x and Redis 8): an overloaded dependency too.
const connectionMessages =
  /connection is closed|connection terminated|stream isn't writeable|max retries per request|client network socket disconnected|server closed the connection|timeout exceeded when trying to connect|LOADING|MASTERDOWN|CONNECTION_CLOSED|disconnect|Command timed out|Timeout limit was reached/i;

export function isDependencyFailure(error: unknown): boolean {
  if (isCairnError(error)) return error.code === "unavailable" || error.code === "timeout";
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | null;
  if (!e) return false;
  const code = typeof e.code === "string" ? e.code : "";
  if (networkCodes.has(code)) return true;
  if (/^[0-9A-Z]{5}$/.test(code) && postgresTransient.test(code)) return true;
  if (e.name === "MaxRetriesPerRequestError" || e.name === "AbortError") return true;
  return typeof e.message === "string" && connectionMessages.test(e.message);
}

/**
 * Runs `fn`; a dependency that cannot be reached becomes `unavailable` (with `what` in the
 * message and a hint to retry), so callers can tell an outage from a bug.
 */
export async function reportOutage<T>(what: string, fn: () => Promise<T>, hint?: string): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isCairnError(error) || !isDependencyFailure(error)) throw error;
    throw new CairnError("unavailable", `${what} cannot be reached right now`, {
      hint: hint ?? "retry shortly",
      cause: error,
    });
  }
}
