// Cairn's own export format, version 1: a header line, then one line per memory (proposal,
// handoff) with its current state and every version it went through. Declared here because
// search answers export pages over the bus; the file format (JSON Lines, import) is
// @cairn/portability's. A reader of version 1 ignores fields it does not know, so a later
// optional field does not need a new version.
import { z } from "zod";
import { memoryErasureEventSchemas } from "./events/maintenance-events.ts";
import { memoryEventSchemas } from "./events/memory-events.ts";
import { MemoryDocumentSchema, ScopeSchema, TimestampSchema } from "./memory.ts";
import { PrincipalSchema } from "./principal.ts";

export const cairnExportFormat = "cairn-export";
export const cairnExportVersion = 1;

/** The event types of a memory stream: what a version can be. */
export type MemoryStreamEventType = keyof typeof memoryEventSchemas | keyof typeof memoryErasureEventSchemas;
export const memoryStreamEventTypes = [
  ...Object.keys(memoryEventSchemas),
  ...Object.keys(memoryErasureEventSchemas),
] as [MemoryStreamEventType, ...MemoryStreamEventType[]];

/** The first line of an export. */
export const CairnExportHeaderSchema = z.object({
  format: z.literal(cairnExportFormat),
  version: z.literal(cairnExportVersion),
  exportedAt: TimestampSchema,
  tenant: z.string().min(1),
  /** The scope the export was limited to; `null` for every scope the exporter could see. */
  scope: ScopeSchema.nullable(),
});
export type CairnExportHeader = z.infer<typeof CairnExportHeaderSchema>;

/** One event of a memory's stream, with the text it set when that text changed. */
export const CairnExportVersionSchema = z.object({
  version: z.number().int().positive(),
  type: z.enum(memoryStreamEventTypes),
  at: TimestampSchema,
  /** Who wrote the event (its `meta.actor`). */
  agent: z.string(),
  title: z.string().optional(),
  content: z.string().optional(),
});
export type CairnExportVersion = z.infer<typeof CairnExportVersionSchema>;

/**
 * One memory: the fields of its current document a person or another tool needs (not the
 * read models' own: tenant, version, content hash, entities, sentiment, consolidation), its
 * whole history, and whether it was purged.
 */
export const CairnExportRecordSchema = MemoryDocumentSchema.pick({
  id: true,
  tier: true,
  status: true,
  slot: true,
  kind: true,
  scope: true,
  /** The author: the agent that recorded the memory. */
  agent: true,
  title: true,
  /** The current content; empty for a purged memory. */
  content: true,
  tags: true,
  aliases: true,
  /** The memory's concept keys. */
  keys: true,
  /** The slots it links to. */
  links: true,
  project: true,
  source: true,
  validFrom: true,
  invalidAt: true,
  verifiedAt: true,
  supersedes: true,
  supersededBy: true,
  promotedFrom: true,
  promotedTo: true,
  createdAt: true,
  updatedAt: true,
  /** The episode it was written in (absent in exports of memories without one). */
  episode: true,
})
  .extend({
    /** Erased for good: no title or content anywhere in the record, its versions included. */
    purged: z.boolean(),
    versions: z.array(CairnExportVersionSchema),
  })
  .superRefine((record, ctx) => {
    if (record.purged) {
      const texts = [
        record.title,
        record.content,
        ...record.versions.flatMap((v) => [v.title ?? "", v.content ?? ""]),
      ];
      if (texts.some((t) => t.length > 0))
        ctx.addIssue({
          code: "custom",
          path: ["purged"],
          message: "a purged memory carries no title or content",
        });
    }
    for (let i = 1; i < record.versions.length; i++) {
      if (record.versions[i]!.version <= record.versions[i - 1]!.version)
        ctx.addIssue({ code: "custom", path: ["versions", i, "version"], message: "versions must increase" });
    }
  });
export type CairnExportRecord = z.infer<typeof CairnExportRecordSchema>;

/**
 * The last line of an export: how many records it holds, and whether it is whole. An export
 * that stopped early (a store went away while it was streamed) ends with `complete: false` and
 * the error; one with no end line at all was cut off (the connection or the writer died). A
 * reader tells a whole export by this line alone.
 */
export const CairnExportEndSchema = z.object({
  end: z.literal(true),
  /** Records written before this line. */
  records: z.number().int().nonnegative(),
  complete: z.boolean(),
  /** Why the export stopped early: a stable code (`unavailable`, `timeout`, …), a message, what to do. */
  error: z.object({ code: z.string(), message: z.string(), hint: z.string().optional() }).optional(),
});
export type CairnExportEnd = z.infer<typeof CairnExportEndSchema>;

/**
 * `cairn.search.export`: a page of the memories (proposals, handoffs) of the principal's
 * tenant that the principal may see, as export records, in the order they were created.
 * `after` is the cursor (0 for the first page); `next` is the next page's, null at the end.
 */
export const ExportPageRequestSchema = z
  .object({
    principal: PrincipalSchema,
    scope: ScopeSchema.optional(),
    after: z.number().int().nonnegative().default(0),
    limit: z.number().int().min(1).max(500).default(200),
  })
  .strict();
export type ExportPageRequest = z.input<typeof ExportPageRequestSchema>;
export const ExportPageReplySchema = z.object({
  records: z.array(CairnExportRecordSchema),
  next: z.number().int().nonnegative().nullable(),
});
export type ExportPageReply = z.infer<typeof ExportPageReplySchema>;
