import { z } from "zod";
import {
  EpisodeSchema,
  IdSchema,
  memoryTextFields,
  ScopeSchema,
  TierSchema,
  TimestampSchema,
} from "../memory.ts";

/** The fields an agent writes plus what ingest derives from them (entities, links, sentiment, hash). */
export const MemoryBodySchema = z.object({
  ...memoryTextFields,
  contentHash: z.string(),
  project: z.string().nullable(),
  source: z.string().nullable(),
  validFrom: TimestampSchema.nullable(),
  /** The episode the memory was written in (added later, so optional). */
  episode: EpisodeSchema.nullable().optional(),
});
export type MemoryBody = z.infer<typeof MemoryBodySchema>;

const created = MemoryBodySchema.extend({
  id: IdSchema,
  tier: TierSchema,
  scope: ScopeSchema,
  agent: z.string(),
  supersedes: IdSchema.nullable(),
  promotedFrom: IdSchema.nullable(),
  /** A consolidated memory: the memories it was made from (each superseded by it). Added later, so optional. */
  consolidatedFrom: z.array(IdSchema).optional(),
  /** Consolidation level: 1 for a memory as written, one more than its highest source for a consolidation. */
  level: z.number().int().min(1).optional(),
});

const revised = MemoryBodySchema.partial();

/**
 * Every event of a memory stream (tiers memory, proposal and handoff), by type and schema
 * version. A new field is optional or a new schema version with an upcaster.
 */
export const memoryEventSchemas = {
  "memory.recorded": created,
  "memory.revised": revised,
  "memory.superseded": z.object({ supersededBy: IdSchema, reason: z.string().nullable() }),
  "memory.archived": z.object({ reason: z.string().nullable() }),
  "memory.deleted": z.object({ reason: z.string().nullable() }),
  "memory.restored": z.object({ reason: z.string().nullable() }),
  "memory.invalidated": z.object({ invalidAt: TimestampSchema.nullable(), reason: z.string().nullable() }),
  "memory.verified": z.object({ verifiedAt: TimestampSchema, note: z.string().nullable() }),
  "proposal.submitted": created,
  "proposal.revised": revised,
  "proposal.promoted": z.object({ memoryId: IdSchema }),
  "proposal.rejected": z.object({ reason: z.string().nullable() }),
  "handoff.opened": created,
  "handoff.updated": revised,
  "handoff.completed": z.object({ summary: z.string().nullable() }),
} as const;
