import { CairnError, isCairnError } from "@cairn/contracts";

const connectionCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
// SQLSTATE: class 08 connection exceptions; shutting down, starting up; too many connections.
const unavailableStates = /^(08...|57P01|57P02|57P03|53300)$/;

/** True for a failure to reach Postgres (as opposed to a bug or a refused statement). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (connectionCodes.has(code) || unavailableStates.test(code))) return true;
  return (
    typeof message === "string" &&
    /Connection terminated|timeout exceeded when trying to connect/i.test(message)
  );
}

/**
 * Runs a command; a database that cannot be reached becomes `unavailable` with a hint to
 * retry, so callers (the gateway, maintenance) can tell an outage from a bug. Nothing was
 * written when this happens before the append, and a retried command with the same
 * idempotency key cannot write twice when it happens during it.
 */
export async function reportDatabaseOutage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isCairnError(error) || !isDatabaseUnavailable(error)) throw error;
    throw new CairnError("unavailable", "the event log (Postgres) cannot be reached right now", {
      hint: "retry shortly, with the same idempotencyKey so a write that did land is not repeated",
      cause: error,
    });
  }
}
