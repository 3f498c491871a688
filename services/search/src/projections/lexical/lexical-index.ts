// The RediSearch index of current memory documents: what is searchable, and how a document
// becomes the flat field list of one hash (FT.ADD on 1.x, HSET on 2.x).
//
// Text is analysed here, not by RediSearch: one field, `terms`, holds the memory's terms as
// @cairn/text-analysis makes them (Snowball stems, English stop words out, Chinese cut into
// words), indexed as they are (NOSTEM, no stop words of the index's own) and queried as they
// are (VERBATIM). So BM25 sees exactly the terms ranking scores on, on both generations of
// RediSearch, whatever their own tokenizer, stemmer or stop word list would have done.
import type { MemoryDocument, Principal, Status, Tier } from "@cairn/contracts";
import { memoryTerms } from "@cairn/text-analysis";
import { normalizeTag } from "./query-syntax.ts";

/**
 * Changes whenever what `terms`, `reach`, the expiry sets or a document's match payload hold
 * changes: a generation built by another version is rebuilt (search does it at start), and
 * until then it is read by its own fields (text from `json`, reach from `tier`, `status`,
 * `tenant`, `scope` and `agent`, "not expired" always asked).
 */
export const lexicalAnalysisVersion = "terms-v5";

/** `invalid_at` of a memory that never expires (9999-12-31): every memory has one, so "not expired" is one range. */
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
  // No `tier`, `status` or visibility tag of their own: a search asks for them as one, `reach`.
  ...["scope", "TAG"],
  ...["tenant", "TAG"],
  ...["agent", "TAG"],
  ...["reach", "TAG"],
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

/**
 * Who may see a document, as values (the memory model's `canSee`, which a property test holds
 * this to): everybody (`global`), its tenant's primary agents (`t<tenant>`), its tenant's
 * agents when it is a team memory (`m<tenant>`), and the agent that wrote it
 * (`a<tenant>x<agent>`); tenant and agent hex-encoded, so `x` only separates.
 */
export function visibilityTags(doc: Pick<MemoryDocument, "tenant" | "agent" | "scope">): string[] {
  const tenant = identityTag(doc.tenant);
  const out = [`t${tenant}`, `a${tenant}x${identityTag(doc.agent)}`];
  if (doc.scope === "team") out.push(`m${tenant}`);
  if (doc.scope === "global") out.push("global");
  return out;
}

/**
 * The visibility values a principal sees: a document is visible when it holds one of them.
 * One tag union of small posting lists, where tenant, scope and agent were an intersection
 * with `scope`'s, which holds most of the index (a third of the match at 100,000 memories).
 */
export function visibleTags(principal: Principal): string[] {
  const tenant = identityTag(principal.tenant);
  if (principal.primary) return ["global", `t${tenant}`];
  return ["global", `m${tenant}`, `a${tenant}x${identityTag(principal.agent)}`];
}

/**
 * Who may see a document, and in which tier and status it is, as the values of one tag,
 * `reach`: each visibility value after the document's tier and status
 * (`<tier>x<status>x<visibility>`; neither a tier nor a status holds an `x`). A search asks for
 * its tier, statuses and principal as one union of small posting lists (`reachedTags`). As
 * three clauses, RediSearch intersected the principal's union with `tier`'s and `status`'s
 * lists, which hold most of the index: 45% of a match's time at 100,000 memories.
 */
export function reachTags(
  doc: Pick<MemoryDocument, "tenant" | "agent" | "scope" | "tier" | "status">,
): string[] {
  return visibilityTags(doc).map((v) => `${doc.tier}x${doc.status}x${v}`);
}

/** The `reach` values a principal asks for in a tier and its statuses. */
export function reachedTags(principal: Principal, tier: Tier, statuses: readonly Status[]): string[] {
  const seen = visibleTags(principal);
  return [...new Set(statuses)].flatMap((status) => seen.map((v) => `${tier}x${status}x${v}`));
}

/**
 * The expiry sets a document with an expiry is kept in (sorted sets of memory ids by
 * `invalid_at`, next to the index): its tenant's, and the global one for a global memory. A
 * principal sees a subset of its tenant's set and the global set (`visibleExpirySets`): while
 * the earliest expiry of both lies ahead, nothing it may see has expired.
 */
export function expirySets(doc: MemoryDocument): string[] {
  const own = `t:${identityTag(doc.tenant)}`;
  return doc.scope === "global" ? [own, "global"] : [own];
}

export function visibleExpirySets(principal: Principal): [string, string] {
  return [`t:${identityTag(principal.tenant)}`, "global"];
}

/**
 * A query's `reach` clauses over the fields an index of an older version has, for a generation
 * that serves while its rebuild runs: by `tier`, `status` and the visibility values as
 * `visible_to` (a tag of older versions), then those by `tenant`, `scope` and `agent`, which
 * every version has. Query text never holds such a clause: its `@`, `:` and `{` are escaped.
 */
export function visibilityByFields(query: string): string {
  const reached = query.replace(/@reach:\{([^}]*)\}/g, (_, values: string) => {
    const operands = values.split("|").map((value) => {
      const [tier, status, ...visible] = value.split("x");
      return `(@tier:{${tier}} @status:{${status}} @visible_to:{${visible.join("x")}})`;
    });
    return `(${operands.join("|")})`;
  });
  return reached.replace(/@visible_to:\{([^}]*)\}/g, (_, values: string) => {
    const operands = values.split("|").map((value) => {
      if (value === "global") return "(@scope:{global})";
      const tenant = value.slice(1).split("x")[0];
      if (value.startsWith("t")) return `(@tenant:{${tenant}})`;
      if (value.startsWith("m")) return `(@tenant:{${tenant}} @scope:{team})`;
      return `(@tenant:{${tenant}} @agent:{${value.slice(1).split("x")[1]}})`;
    });
    return `(${operands.join("|")})`;
  });
}

function tags(values: readonly string[]): string {
  return [...new Set(values.map(normalizeTag).filter((v) => v !== ""))].join(",");
}

/** A document's terms: what the index holds and the statistics count. */
export function documentTerms(doc: MemoryDocument): string[] {
  return memoryTerms(doc);
}

/** A memory's place in its episode: the order it was given, else its creation time. */
export function episodeOrder(doc: Pick<MemoryDocument, "episode" | "createdAt">): number {
  return doc.episode?.order ?? Date.parse(doc.createdAt);
}

/** The episode a memory was written in and its place there (what episode neighbours are found by). */
export type EpisodePlace = { id: string; order: number };

export function episodePlace(doc: Pick<MemoryDocument, "episode" | "createdAt">): EpisodePlace | null {
  return doc.episode ? { id: doc.episode.id, order: episodeOrder(doc) } : null;
}

/** What a lexical match needs of a document: its analysed terms, their count and its episode place. */
export type MatchPayload = { terms: string; termCount: number; place: EpisodePlace | null };

/**
 * What a match needs of a document, kept with it in the index (FT.ADD's PAYLOAD on 1.x) so that
 * FT.SEARCH answers it from the index (WITHPAYLOADS) without reading each hit's hash, which is
 * what RETURN does and about half of a match's time. Its term count, its place in its episode
 * (its order, then its episode's id hex-encoded, as the hash keeps them; both empty without
 * one) and its analysed terms, `|`-separated, the terms last (read as the rest).
 */
export function matchPayload(
  doc: Pick<MemoryDocument, "episode" | "createdAt">,
  terms: readonly string[],
): string {
  const place = episodePlace(doc);
  return [terms.length, place ? place.order : "", place ? identityTag(place.id) : "", terms.join(" ")].join(
    "|",
  );
}

/** A match payload read back; null when it is not one (a document written without it). */
export function parseMatchPayload(payload: string | null | undefined): MatchPayload | null {
  if (typeof payload !== "string") return null;
  const first = payload.indexOf("|");
  const second = payload.indexOf("|", first + 1);
  const third = payload.indexOf("|", second + 1);
  if (first < 0 || second < 0 || third < 0) return null;
  const termCount = Number(payload.slice(0, first));
  if (!Number.isInteger(termCount) || termCount < 0) return null;
  return {
    terms: payload.slice(third + 1),
    termCount,
    place: storedPlace(payload.slice(second + 1, third), payload.slice(first + 1, second)),
  };
}

/** A place as a document keeps it: its episode's id hex-encoded and its order (null without an episode). */
function storedPlace(tag: string | undefined, order: string | undefined): EpisodePlace | null {
  if (!tag || !order || !Number.isFinite(Number(order))) return null;
  return { id: Buffer.from(tag, "hex").toString("utf8"), order: Number(order) };
}

/** The place a hash's `episode` and `episode_order` fields hold (null without an episode). */
export function placeOfFields(fields: ReadonlyMap<string, string>): EpisodePlace | null {
  return storedPlace(fields.get("episode"), fields.get("episode_order"));
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
    // Stored, not indexed: BM25 over a match's terms needs their count, not their list.
    ...["term_count", String(terms.length)],
    ...["tags", tags(doc.tags)],
    ...["entity_tags", tags(doc.entities.map((e) => e.text))],
    ...["key_tags", tags(doc.keys)],
    ...["slot_tag", tags([doc.slot])],
    ...["links", tags(doc.links)],
    ...["kind", doc.kind],
    ...["scope", doc.scope],
    ...["tenant", identityTag(doc.tenant)],
    ...["agent", identityTag(doc.agent)],
    ...["reach", reachTags(doc).join(",")],
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
