// The settings every service that runs projections reads from its environment, under its own
// prefix (`CAIRN_SEARCH_RETRY_BASE_MS`, `CAIRN_RANKING_RETRY_BASE_MS`, …), declared once here.
import { z } from "zod";
import type { ProjectionRuntimeSettings } from "./projection-runtime.ts";

type Keys<P extends string> =
  | `CAIRN_${P}_BATCH_SIZE`
  | `CAIRN_${P}_ACK_WAIT_MS`
  | `CAIRN_${P}_RETRY_BASE_MS`
  | `CAIRN_${P}_RETRY_MAX_MS`
  | `CAIRN_${P}_MAX_ATTEMPTS`
  | `CAIRN_${P}_CATCH_UP_MS`
  | `CAIRN_${P}_LEASE_CHECK_MS`;

const int = (fallback: number, min: number) => z.coerce.number().int().min(min).default(fallback);

/** The zod fields of the projection settings of service `P` (e.g. "SEARCH"). */
export function projectionRuntimeEnv<P extends string>(
  prefix: P,
  defaults: { catchUpMs?: number } = {},
): Record<Keys<P>, ReturnType<typeof int>> {
  return {
    /** Events per write when a projection is behind the log. */
    [`CAIRN_${prefix}_BATCH_SIZE`]: int(200, 1),
    /** How long a delivered event stays ours before JetStream delivers it again. */
    [`CAIRN_${prefix}_ACK_WAIT_MS`]: int(30_000, 1000),
    /** Backoff of an event that failed to apply: base, doubling, capped. */
    [`CAIRN_${prefix}_RETRY_BASE_MS`]: int(200, 1),
    [`CAIRN_${prefix}_RETRY_MAX_MS`]: int(5000, 1),
    /** Failed attempts, with the store answering, after which an event is set aside as a dead letter. */
    [`CAIRN_${prefix}_MAX_ATTEMPTS`]: int(6, 1),
    /** How often each projection reads the log for events it was not sent (0: never). */
    [`CAIRN_${prefix}_CATCH_UP_MS`]: int(defaults.catchUpMs ?? 5000, 0),
    /** How often a copy looks at the other copies and the projections' leases (who applies what). */
    [`CAIRN_${prefix}_LEASE_CHECK_MS`]: int(2000, 100),
  } as Record<Keys<P>, ReturnType<typeof int>>;
}

export function projectionSettingsFromEnv<P extends string>(
  env: Record<Keys<P>, number>,
  prefix: P,
): ProjectionRuntimeSettings {
  const get = (name: string) => (env as Record<string, number>)[`CAIRN_${prefix}_${name}`] as number;
  return {
    batchSize: get("BATCH_SIZE"),
    ackWaitMs: get("ACK_WAIT_MS"),
    catchUpMs: get("CATCH_UP_MS"),
    leaseCheckMs: get("LEASE_CHECK_MS"),
    retry: { baseMs: get("RETRY_BASE_MS"), maxMs: get("RETRY_MAX_MS"), maxAttempts: get("MAX_ATTEMPTS") },
  };
}
