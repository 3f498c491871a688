// History and as-of: every version of a memory, and its state at an earlier point, read back
// from the log (the only truth). A point is a log position or a time; a time stands for the
// last event committed at or before it.
import { z } from "zod";
import { IdSchema, MemoryDocumentSchema, StatusSchema, TierSchema, TimestampSchema } from "./memory.ts";
import { PrincipalSchema } from "./principal.ts";

/** `asOf`: a log position (a number) or a time (an ISO timestamp with offset). */
export const AsOfSchema = z.union([z.number().int().nonnegative(), TimestampSchema]);
export type AsOf = z.infer<typeof AsOfSchema>;

export const MemoryVersionSchema = z.object({
  version: z.number().int().positive(),
  /** The log position of the event that made this version. */
  position: z.number().int().positive(),
  /** The event type (`memory.revised`, `proposal.promoted`, …). */
  type: z.string(),
  /** When it was recorded, and by which agent (or service). */
  at: TimestampSchema,
  agent: z.string(),
  /** Document fields this event changed. */
  changed: z.array(z.string()),
  status: StatusSchema,
  /** The title and content of this version; null once the memory is purged (its text is gone). */
  title: z.string().nullable(),
  content: z.string().nullable(),
  /** A reason or note the event carried (archived, deleted, rejected, verified …). */
  note: z.string().nullable(),
});
export type MemoryVersion = z.infer<typeof MemoryVersionSchema>;

/** `cairn.search.history`: every version of a memory the principal may see. */
export const HistoryRequestSchema = z
  .object({
    principal: PrincipalSchema,
    id: IdSchema,
    afterPosition: z.number().int().nonnegative().optional(),
  })
  .strict();
export type HistoryRequest = z.input<typeof HistoryRequestSchema>;

export const HistoryReplySchema = z.object({
  id: IdSchema,
  tier: TierSchema,
  purged: z.boolean(),
  versions: z.array(MemoryVersionSchema),
  /** The memory as it is now. */
  current: MemoryDocumentSchema,
});
export type HistoryReply = z.infer<typeof HistoryReplySchema>;
