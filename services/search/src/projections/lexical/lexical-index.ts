// The RediSearch index of current memory documents: what is searchable, with which weight,
// and how a document becomes the flat field list of one hash (FT.ADD on 1.x, HSET on 2.x).
import type { MemoryDocument } from "@cairn/contracts";
import { chineseSegments, normalizeTag } from "./text-analysis.ts";

/** `invalid_at` of a memory that never expires (9999-12-31), so "not expired" is one range. */
export const neverExpires = 253_402_300_799_000;

/** Weighted text fields (BM25) and exact tag / numeric filter fields. */
export const lexicalSchema: readonly string[] = [
  ...["content", "TEXT", "WEIGHT", "1"],
  ...["slot", "TEXT", "WEIGHT", "3"],
  ...["title", "TEXT", "WEIGHT", "2"],
  ...["aliases", "TEXT", "WEIGHT", "2"],
  ...["entities", "TEXT", "WEIGHT", "1"],
  ...["keys", "TEXT", "WEIGHT", "1"],
  // jieba words of the Chinese in content, title and aliases (RediSearch does not segment it).
  ...["cjk", "TEXT", "WEIGHT", "1"],
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

/** Slot words: `deploy_process/prod` is found by "deploy process prod". */
function slotWords(slot: string): string {
  return slot.replace(/[_./:]+/g, " ");
}

function millis(timestamp: string | null, fallback: number): string {
  return String(timestamp === null ? fallback : Date.parse(timestamp));
}

/**
 * The hash fields of a document. Every numeric field is always present and numeric (on 2.x a
 * value that does not parse leaves the whole document out of the index), and `json` holds the
 * full document for reads by id.
 */
export function documentFields(doc: MemoryDocument): string[] {
  const fields: string[] = [
    ...["content", doc.content],
    ...["slot", slotWords(doc.slot)],
    ...["title", doc.title],
    ...["aliases", doc.aliases.join(" ; ")],
    ...["entities", doc.entities.map((e) => e.text).join(" ; ")],
    ...["keys", doc.keys.join(" ; ")],
    ...["cjk", chineseSegments(`${doc.title}\n${doc.aliases.join("\n")}\n${doc.content}`).join(" ")],
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
  return fields;
}
