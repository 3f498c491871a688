import type { ProjectionName } from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import { createBatchApplier } from "./batch-applier.ts";
import { createDeadLetterStore } from "./dead-letter-store.ts";
import type { ProjectionHost } from "./projection-host.ts";
import { type RebuildOptions, type RebuildResult, rebuildProjection } from "./rebuild-projection.ts";
import type { RetryPolicy } from "./retry-policy.ts";

/** Rebuilds one projection of a host, with the same decoding, retries and dead letters as live. */
export function rebuildFromHost(
  host: ProjectionHost,
  name: ProjectionName,
  options: Omit<RebuildOptions, "projection" | "applier" | "log" | "pool"> & {
    retry?: RetryPolicy;
    logger?: Logger;
  } = {},
): Promise<RebuildResult> {
  const projection = host.projections.find((p) => p.name === name);
  if (!projection) throw new Error(`no projection ${name} here`);
  const applier = createBatchApplier({
    projection,
    sealRing: host.sealRing,
    deadLetters: createDeadLetterStore(host.pool),
    retry: options.retry,
    logger: options.logger,
  });
  return rebuildProjection({ ...options, projection, applier, log: host.log, pool: host.pool });
}
