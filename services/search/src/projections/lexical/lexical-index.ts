// The RediSearch index of current memory documents: what is searchable, and how a document
// becomes the flat field list of one hash (FT.ADD on 1.x, HSET on 2.x).
//
// Text is analysed here, not by RediSearch: one field, `terms`, holds the memory's terms as
// @cairn/text-analysis makes them (Snowball stems, English stop words out, Chinese cut into
// words), indexed as they are (NOSTEM, no stop words of the index's own) and queried as they
// are (VERBATIM). So BM25 sees exactly the terms ranking scores on, on both generations of
// RediSearch, whatever their own tokenizer, stemmer or stop word list would have done.
import type { MemoryDocument } from "@cairn/contracts";
import { memoryTerms } from "@cairn/text-analysis";
import { normalizeTag } from "./query-syntax.ts";

/**
 * Changes whenever what `terms` holds changes: a generation built with another analysis is
 * rebuilt (search does it at start) before its scores can be compared with a query's terms.
 */
export const lexicalAnalysisVersion = "terms-v1";

/** `invalid_at` of a memory that never expires (9999-12-31): every memory has one, so "expired" is one range. */
export const neverExpires = 253_402_300_799_000;

/** The one text field (BM25 over the analysed terms) and exact tag / numeric filter fields. */
export const lexicalSchema: readonly string[] = [
  ...["terms", "TEXT", "NOSTEM"],
  ...["tags", "TAG"],
  ...["entity_tags", "TAG"],
  ...["key_tags", "TAG"],
  ...["slot_tag", "TAG"],
  ...["links", "TAG"],
  ...["kind", "TAG"],
  ...["tier", "TAG"],
  ...["status", "TAG"],
  ...["scope", "TAG"],
  ...["tenant", "TAG"],
  ...["agent", "TAG"],
  ...["project", "TAG"],
  ...["created", "NUMERIC", "SORTABLE"],
  ...["updated", "NUMERIC", "SORTABLE"],
  ...["invalid_at", "NUMERIC"],
  ...["valid_from", "NUMERIC"],
  // The episode a memory was written in, and its place there (episode neighbours at recall).
  ...["episode", "TAG"],
  ...["episode_order", "NUMERIC", "SORTABLE"],
];

/**
 * Identity tags (tenant, agent) are matched exactly: agent ids are case-sensitive, and
 * RediSearch lower-cases tag values, so they are stored hex-encoded.
 */
export function identityTag(value: string): string {
  return Buffer.from(value, "utf8").toString("hex");
}

function tags(values: readonly string[]): string {
  return [...new Set(values.map(normalizeTag).filter((v) => v !== ""))].join(",");
}

/** A document's terms: what the index holds and the statistics count. */
export function documentTerms(doc: MemoryDocument): string[] {
  return memoryTerms(doc);
}

/** A memory's place in its episode: the order it was given, else its creation time. */
export function episodeOrder(doc: MemoryDocument): number {
  return doc.episode?.order ?? Date.parse(doc.createdAt);
}

/** The episode a memory was written in and its place there (what episode neighbours are found by). */
export type EpisodePlace = { id: string; order: number };

export function episodePlace(doc: MemoryDocument): EpisodePlace | null {
  return doc.episode ? { id: doc.episode.id, order: episodeOrder(doc) } : null;
}

/** The place a hash's `episode` and `episode_order` fields hold (null without an episode). */
export function placeOfFields(fields: ReadonlyMap<string, string>): EpisodePlace | null {
  const tag = fields.get("episode");
  const order = Number(fields.get("episode_order"));
  if (!tag || !Number.isFinite(order)) return null;
  return { id: Buffer.from(tag, "hex").toString("utf8"), order };
}

function millis(timestamp: string | null, fallback: number): string {
  return String(timestamp === null ? fallback : Date.parse(timestamp));
}

/**
 * The hash fields of a document. Every numeric field is always present and numeric (on 2.x a
 * value that does not parse leaves the whole document out of the index), and `json` holds the
 * full document for reads by id.
 */
export function documentFields(doc: MemoryDocument, terms: readonly string[] = documentTerms(doc)): string[] {
  const fields: string[] = [
    ...["terms", terms.join(" ")],
    ...["tags", tags(doc.tags)],
    ...["entity_tags", tags(doc.entities.map((e) => e.text))],
    ...["key_tags", tags(doc.keys)],
    ...["slot_tag", tags([doc.slot])],
    ...["links", tags(doc.links)],
    ...["kind", doc.kind],
    ...["tier", doc.tier],
    ...["status", doc.status],
    ...["scope", doc.scope],
    ...["tenant", identityTag(doc.tenant)],
    ...["agent", identityTag(doc.agent)],
    ...["created", millis(doc.createdAt, 0)],
    ...["updated", millis(doc.updatedAt, 0)],
    ...["invalid_at", millis(doc.invalidAt, neverExpires)],
    ...["valid_from", millis(doc.validFrom, 0)],
    ...["json", JSON.stringify(doc)],
  ];
  if (doc.project !== null && normalizeTag(doc.project) !== "") fields.push("project", tags([doc.project]));
  if (doc.episode)
    fields.push("episode", identityTag(doc.episode.id), "episode_order", String(episodeOrder(doc)));
  return fields;
}
