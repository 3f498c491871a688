// Failures of a read model during a query, as the errors a caller can act on: the store did
// not answer (`unavailable`: retry shortly) or answered with an error (`internal`: a bug).
import { CairnError, isCairnError, type RetrieverName } from "@cairn/contracts";
import { isDependencyFailure } from "@cairn/service-runtime";

/** Errors the server itself replied with (Redis `-ERR …`, a Postgres error with a SQLSTATE). */
function isServerReply(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === "ReplyError") return true;
  const code = (error as { code?: unknown }).code;
  // SQLSTATE class 08 (connection), 57 (operator intervention: shutdown), 53 (resources) are outages.
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57|53)/.test(code);
}

export function readModelError(projection: RetrieverName, error: unknown): CairnError {
  if (isCairnError(error)) return error;
  // A server that answers that it cannot serve now (Redis LOADING, MASTERDOWN) is away, not refusing.
  if (isServerReply(error) && !isDependencyFailure(error)) {
    return new CairnError("internal", `the ${projection} read model refused the query`, { cause: error });
  }
  return new CairnError("unavailable", `the ${projection} read model is unreachable`, {
    hint: "retry shortly; the search service reconnects by itself",
    cause: error,
  });
}

/** An index or table of a generation that a rebuild has just dropped. */
function isDroppedGeneration(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    /unknown index name|no such index/i.test(error.message) || (error as { code?: unknown }).code === "42P01"
  );
}

/**
 * Runs a read against the active generation; if a rebuild dropped that generation while the
 * read was in flight, runs it once more (it then reads the new active generation).
 */
export async function onActiveGeneration<T>(read: (attempt: number) => Promise<T>): Promise<T> {
  try {
    return await read(0);
  } catch (error) {
    if (!isDroppedGeneration(error)) throw error;
    return read(1);
  }
}
