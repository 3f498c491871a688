import { z } from "zod";
import { MaintenanceRunRecordSchema } from "../maintenance/run-record.ts";
import { IdSchema } from "../memory.ts";

/**
 * Erasure of a memory (memory streams). Kept apart from `memoryEventSchemas` so that a
 * consumer handles it on purpose: after `memory.purged` the memory's seal is destroyed
 * (crypto-shredding, see `sealed-content.ts`), its sealed fields can never be opened again,
 * and a read model keeps no text for it.
 */
export const memoryErasureEventSchemas = {
  "memory.purged": z.object({
    reason: z.string().nullable(),
    /** The maintenance run that purged it (null for a purge asked for directly). */
    runId: IdSchema.nullable(),
  }),
} as const;

/** Maintenance streams (`maintenance-<runId>`): one record per finished run. */
export const maintenanceEventSchemas = {
  "maintenance.run_recorded": MaintenanceRunRecordSchema.extend({
    /** The tenant whose memories the run looked after (also in the event's meta). */
    tenant: z.string(),
  }),
} as const;
