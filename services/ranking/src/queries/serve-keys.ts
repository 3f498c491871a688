// keys.recall, keys.read and keys.related: navigation of the key graph. Labels, counts and
// memory cards only; never memory content.
import {
  CairnError,
  type KeyMatch,
  type KeysReadReply,
  type KeysReadRequestSchema,
  type KeysRecallReply,
  type KeysRecallRequestSchema,
  type KeysRelatedReply,
  type KeysRelatedRequestSchema,
} from "@cairn/contracts";
import { matchesBySimilarity } from "@cairn/memory-model";
import type { z } from "zod";
import { type KeyRecord, keyForms, resolveKey } from "../projections/keys/keys-projection.ts";
import { isLive, isVisibleTo, type MemoryCard, readCard } from "../projections/memory-card/memory-card.ts";
import { labelGrams, labelSimilarity, similarityForms, trigrams, words } from "../text/analyze-text.ts";
import { describeKey, keyedMemories, liveMemoryCount, visibleLinks } from "./key-listing.ts";
import type { RequestContext } from "./ranking-context.ts";

/** Concept keys whose label is at least this similar (trigrams) to a query phrase match it. */
export const conceptMatchThreshold = 0.5;

/** Keys named in the query: exact (normalised) for every type, by similarity for concepts. */
async function matchingKeys(
  ctx: RequestContext,
  tenant: string,
  query: string,
): Promise<Map<string, number>> {
  const paths = ctx.layout.keys(tenant);
  const grams = [...new Set(labelGrams(query))];
  const matches = new Map<string, number>();
  const note = (keyId: string, match: number) => matches.set(keyId, Math.max(matches.get(keyId) ?? 0, match));
  const exact = grams.length > 0 ? await ctx.redis.hmget(paths.labels, ...grams) : [];
  for (const id of exact) if (id) note(id, 1);
  // Similarity for concepts: phrases of up to three words, as written and stemmed, against
  // concept labels and aliases.
  const ws = words(query);
  const phrases: string[][] = [];
  for (let n = 1; n <= 3; n += 1) {
    for (let i = 0; i + n <= ws.length; i += 1) {
      const phrase = ws.slice(i, i + n).join(" ");
      if (phrase.length >= 3) phrases.push(similarityForms(phrase));
    }
  }
  const candidates = new Set<string>();
  const phraseGrams = new Set(phrases.flat().flatMap((f) => [...trigrams(f)]));
  const sets = await Promise.all([...phraseGrams].map((g) => ctx.redis.smembers(paths.trigram(g))));
  for (const s of sets) for (const id of s) candidates.add(id);
  for (const id of candidates) {
    const record = await resolveKey(ctx.redis, paths, id);
    if (!record || !matchesBySimilarity(record.type)) continue;
    const forms = keyForms(record);
    let best = 0;
    for (const phrase of phrases) best = Math.max(best, labelSimilarity(phrase, forms));
    if (best >= conceptMatchThreshold) note(record.keyId, best);
  }
  return matches;
}

export async function handleKeysRecall(
  ctx: RequestContext,
  request: z.infer<typeof KeysRecallRequestSchema>,
): Promise<KeysRecallReply> {
  const { position } = ctx;
  const { principal } = request;
  const paths = ctx.layout.keys(principal.tenant);
  const matches = await matchingKeys(ctx, principal.tenant, request.query);
  const live = await liveMemoryCount(ctx, principal.tenant);
  const found = new Map<string, KeyMatch>();
  for (const [id, match] of matches) {
    const record = await resolveKey(ctx.redis, paths, id);
    if (!record || found.has(record.keyId)) continue;
    const { total } = await visibleLinks(ctx, principal, record.keyId);
    if (total === 0) continue;
    const described = describeKey(ctx, record, total, live);
    // Specific keys first among equal matches; a hub still ranks, lower.
    found.set(record.keyId, { ...described, score: match * (0.5 + 0.5 * described.specificity) });
  }
  const sorted = [...found.values()].sort((a, b) => b.score - a.score || a.label.localeCompare(b.label));
  return { keys: sorted.slice(0, request.limit), position };
}

async function keyOrNotFound(ctx: RequestContext, tenant: string, keyId: string): Promise<KeyRecord> {
  const record = await resolveKey(ctx.redis, ctx.layout.keys(tenant), keyId);
  if (!record) throw new CairnError("not_found", `no key ${keyId}`, { hint: "find keys with keys.recall" });
  return record;
}

export async function handleKeysRead(
  ctx: RequestContext,
  request: z.infer<typeof KeysReadRequestSchema>,
): Promise<KeysReadReply> {
  const { position } = ctx;
  const { principal } = request;
  const record = await keyOrNotFound(ctx, principal.tenant, request.keyId);
  const { links, total } = await visibleLinks(ctx, principal, record.keyId);
  const page = links.slice(request.offset, request.offset + request.limit);
  const next = request.offset + page.length;
  return {
    key: describeKey(ctx, record, total, await liveMemoryCount(ctx, principal.tenant)),
    memories: await keyedMemories(ctx, principal.tenant, page),
    total,
    nextOffset: next < links.length ? next : null,
    position,
  };
}

export async function handleKeysRelated(
  ctx: RequestContext,
  request: z.infer<typeof KeysRelatedRequestSchema>,
): Promise<KeysRelatedReply> {
  const { position } = ctx;
  const { principal } = request;
  const paths = ctx.layout.keys(principal.tenant);
  const card: MemoryCard | undefined = await readCard(ctx.redis, paths.card(request.memoryId));
  if (!card || !isVisibleTo(card, principal) || !isLive(card)) {
    throw new CairnError("not_found", `no memory ${request.memoryId}`, {
      hint: "find memories with a search",
    });
  }
  const live = await liveMemoryCount(ctx, principal.tenant);
  const keyIds = (await ctx.redis.smembers(paths.memoryKeys(request.memoryId))).sort();
  const out: KeysRelatedReply["keys"] = [];
  for (const keyId of keyIds) {
    const record = await resolveKey(ctx.redis, paths, keyId);
    if (!record) continue;
    const { links, total } = await visibleLinks(ctx, principal, record.keyId);
    const others = links.filter((l) => l.card.id !== request.memoryId).slice(0, request.perKey);
    out.push({
      key: describeKey(ctx, record, total, live),
      memories: await keyedMemories(ctx, principal.tenant, others),
    });
  }
  // Specific keys lead: a hop through a hub says little.
  out.sort((a, b) => b.key.specificity - a.key.specificity || a.key.label.localeCompare(b.key.label));
  return { keys: out, position };
}
