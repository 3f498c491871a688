// What the search service offers maintenance's doctor and repair: an inventory of a read
// model's documents (ids, versions, lifecycle, whether text is held; never the text), and
// re-projecting named documents from the log when a read model lost or mangled them.
import { z } from "zod";
import { IdSchema, StatusSchema, TierSchema } from "./memory.ts";
import { TenantIdSchema } from "./principal.ts";
import { RetrieverNameSchema } from "./queries.ts";

export const searchRepairSubjects = {
  inventory: "cairn.search.inventory",
  reproject: "cairn.search.reproject",
} as const;

/**
 * `cairn.search.inventory`: the documents of a projection's active generation, a page at a
 * time (`cursor` from the previous page), or just the listed `ids` that it holds.
 */
export const InventoryRequestSchema = z
  .object({
    projection: RetrieverNameSchema,
    tenant: TenantIdSchema.optional(),
    ids: z.array(IdSchema).min(1).max(1000).optional(),
    cursor: z.string().min(1).optional(),
    limit: z.number().int().min(1).max(5000).default(1000),
  })
  .strict();
export type InventoryRequest = z.input<typeof InventoryRequestSchema>;

export const InventoryDocumentSchema = z.object({
  id: IdSchema,
  tenant: z.string(),
  tier: TierSchema,
  status: StatusSchema,
  version: z.number().int().positive(),
  /** Whether the document holds any text (content, title or entities). */
  hasText: z.boolean(),
  purged: z.boolean(),
});
export type InventoryDocument = z.infer<typeof InventoryDocumentSchema>;

export const InventoryReplySchema = z.object({
  projection: RetrieverNameSchema,
  generation: z.number().int().nonnegative(),
  /** The log position the generation had applied when the page was read. */
  position: z.number().int().nonnegative(),
  documents: z.array(InventoryDocumentSchema),
  /** The cursor of the next page; null on the last one (and for an `ids` request). */
  nextCursor: z.string().nullable(),
});
export type InventoryReply = z.infer<typeof InventoryReplySchema>;

/**
 * `cairn.search.reproject`: rebuilds these documents in the active generation of each
 * projection (default: both) from the log, as of the projection's checkpoint, so that live
 * projection carries on from there. Documents already current are left alone.
 */
export const ReprojectRequestSchema = z
  .object({
    ids: z.array(IdSchema).min(1).max(500),
    projections: z.array(RetrieverNameSchema).min(1).optional(),
  })
  .strict();
export type ReprojectRequest = z.input<typeof ReprojectRequestSchema>;

export const ReprojectReplySchema = z.object({
  projections: z.array(
    z.object({
      name: RetrieverNameSchema,
      generation: z.number().int().nonnegative(),
      position: z.number().int().nonnegative(),
      reprojected: z.array(z.object({ id: IdSchema, version: z.number().int().positive() })),
      unchanged: z.array(IdSchema),
      /** No such memory stream in the log up to the checkpoint (a rebuild removes such documents). */
      notInLog: z.array(IdSchema),
    }),
  ),
});
export type ReprojectReply = z.infer<typeof ReprojectReplySchema>;
