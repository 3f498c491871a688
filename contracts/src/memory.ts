import { z } from "zod";

/** Limits enforced at ingest; they are part of the contract so every edge can state them. */
export const limits = {
  contentMaxChars: 32_000,
  titleMaxChars: 200,
  slotMaxChars: 120,
  tagMaxChars: 64,
  maxTags: 32,
  maxAliases: 16,
  maxKeys: 32,
  projectMaxChars: 120,
  sourceMaxChars: 500,
  reasonMaxChars: 1000,
  episodeMaxChars: 200,
  secretAllowEntryMaxChars: 500,
  maxSecretAllowEntries: 200,
  /** Recalls one `recalls.record` command carries (the gateway sends a caller's recalls together). */
  maxRecallsPerCommand: 32,
} as const;

export const tiers = ["memory", "proposal", "handoff"] as const;
export const TierSchema = z.enum(tiers);
export type Tier = z.infer<typeof TierSchema>;

/** Lifecycle states per tier: memory active→superseded|archived|deleted; proposal pending→promoted|rejected; handoff active→completed. */
export const statuses = [
  "active",
  "superseded",
  "archived",
  "deleted",
  "pending",
  "promoted",
  "rejected",
  "completed",
] as const;
export const StatusSchema = z.enum(statuses);
export type Status = z.infer<typeof StatusSchema>;

export const kinds = [
  "preference",
  "decision",
  "constraint",
  "fix",
  "workflow",
  "fact",
  "episode",
  "note",
] as const;
export const KindSchema = z.enum(kinds);
export type Kind = z.infer<typeof KindSchema>;

/** `agent`: private to the writing agent; `team`: the tenant; `global`: every tenant of the deployment. */
export const scopes = ["agent", "team", "global"] as const;
export const ScopeSchema = z.enum(scopes);
export type Scope = z.infer<typeof ScopeSchema>;

export const entityTypes = [
  "person",
  "place",
  "organisation",
  "product",
  "ticker",
  "code",
  "url",
  "term",
] as const;
export const EntityTypeSchema = z.enum(entityTypes);
export const EntitySchema = z.object({ text: z.string(), type: EntityTypeSchema });
export type Entity = z.infer<typeof EntitySchema>;

export const IdSchema = z.uuid();
export const TimestampSchema = z.iso.datetime({ offset: true });

export const SlotSchema = z.string().min(1).max(limits.slotMaxChars);

/**
 * The conversation, thread or session a memory was written in, and its place there (`order`,
 * null: its creation time orders it). Memories of one episode keep that context: at recall a
 * memory's neighbours in its episode share its relevance.
 */
export const EpisodeSchema = z.object({
  id: z.string().min(1).max(limits.episodeMaxChars),
  order: z.number().int().nullable(),
});
export type Episode = z.infer<typeof EpisodeSchema>;

/**
 * What a memory says and how it is named and labelled, with what ingest derives from its text
 * (entities, links, sentiment): the fields its events carry and its document holds alike.
 */
export const memoryTextFields = {
  slot: SlotSchema,
  kind: KindSchema,
  content: z.string(),
  title: z.string(),
  tags: z.array(z.string()),
  aliases: z.array(z.string()),
  keys: z.array(z.string()),
  entities: z.array(EntitySchema),
  links: z.array(z.string()),
  sentiment: z.number().min(-1).max(1),
};

/** The current document of a memory stream, as projections and reads see it. */
export const MemoryDocumentSchema = z.object({
  id: IdSchema,
  tier: TierSchema,
  status: StatusSchema,
  ...memoryTextFields,
  scope: ScopeSchema,
  tenant: z.string(),
  agent: z.string(),
  project: z.string().nullable(),
  source: z.string().nullable(),
  validFrom: TimestampSchema.nullable(),
  invalidAt: TimestampSchema.nullable(),
  verifiedAt: TimestampSchema.nullable(),
  supersedes: IdSchema.nullable(),
  supersededBy: IdSchema.nullable(),
  /** For a promoted proposal, the memory it became; for a memory made from a proposal, that proposal. */
  promotedTo: IdSchema.nullable(),
  promotedFrom: IdSchema.nullable(),
  version: z.number().int().positive(),
  contentHash: z.string(),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
  /** A consolidated memory: the memories it was made from, and its level (added later, so optional). */
  consolidatedFrom: z.array(IdSchema).optional(),
  level: z.number().int().min(1).optional(),
  /**
   * When the memory was purged: its seal is destroyed, and content, title and entities
   * are empty for good (status stays `deleted`). Added later, so optional.
   */
  purgedAt: TimestampSchema.nullable().optional(),
  /** The episode it was written in (added later, so optional). */
  episode: EpisodeSchema.nullable().optional(),
});
export type MemoryDocument = z.infer<typeof MemoryDocumentSchema>;
