import type { SealRing } from "@cairn/contracts";
import type pg from "pg";
import type { EventLogReader } from "./event-log-reader.ts";
import type { Projection } from "./projection.ts";

/**
 * A service's projections opened outside the service, the way it opens them (for a rebuild
 * run by an operator): the projections, the log they read, the database their dead letters
 * and locks live in, and the seals when they read memory text.
 */
export type ProjectionHost = {
  projections: readonly Projection[];
  log: EventLogReader;
  pool: pg.Pool;
  sealRing?: SealRing | undefined;
  close(): Promise<void>;
};
