// Reads of the key graph shared by keys.recall, keys.read and keys.related.
import type { KeyedMemory, KeyMatch, Principal } from "@cairn/contracts";
import { type KeyRecord, resolveKey } from "../projections/keys/keys-projection.ts";
import { isLive, isVisibleTo, type MemoryCard } from "../projections/memory-card/memory-card.ts";
import { depthAt } from "../projections/signals/signal-math.ts";
import { depthFields } from "../store/redis-layout.ts";
import { hubCount, type RequestContext } from "./ranking-context.ts";

/** Links scanned per key for a visibility-filtered count; beyond it the count is the total. */
export const maxLinksScanned = 5000;

export type VisibleLink = { card: MemoryCard; weight: number };

/** The key's live links the principal may see, strongest first (ties by memory id). */
export async function visibleLinks(
  ctx: RequestContext,
  principal: Principal,
  keyId: string,
): Promise<{ links: VisibleLink[]; total: number }> {
  const paths = ctx.layout.keys(principal.tenant);
  const total = await ctx.redis.zcard(paths.links(keyId));
  const flat = await ctx.redis.zrange(paths.links(keyId), 0, maxLinksScanned - 1, "REV", "WITHSCORES");
  const ids: string[] = [];
  const weights: number[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    ids.push(flat[i] as string);
    weights.push(Number(flat[i + 1]));
  }
  const raw = ids.length > 0 ? await ctx.redis.mget(ids.map((id) => paths.card(id))) : [];
  const links: VisibleLink[] = [];
  raw.forEach((json, i) => {
    if (json === null) return;
    const card = JSON.parse(json) as MemoryCard;
    if (isLive(card) && isVisibleTo(card, principal)) links.push({ card, weight: weights[i] ?? 1 });
  });
  links.sort((a, b) => b.weight - a.weight || a.card.id.localeCompare(b.card.id));
  return { links, total: total > maxLinksScanned ? total - ids.length + links.length : links.length };
}

export async function liveMemoryCount(ctx: RequestContext, tenant: string): Promise<number> {
  return Number((await ctx.redis.get(ctx.layout.keys(tenant).liveCount)) ?? 0);
}

/** IDF-style specificity in 0..1: 1 for a key on one memory, 0 for one on every memory. */
export function specificity(linked: number, live: number): number {
  if (linked <= 0) return 0;
  const n = Math.max(live, linked);
  if (n <= 1) return 1;
  return Math.max(0, Math.min(1, Math.log(n / linked) / Math.log(n) + 1 / n));
}

export function describeKey(
  ctx: RequestContext,
  record: KeyRecord,
  linkedCount: number,
  live: number,
): Omit<KeyMatch, "score"> {
  return {
    keyId: record.keyId,
    label: record.label,
    aliases: record.aliases,
    type: record.type,
    linkedCount,
    hub: linkedCount >= hubCount(ctx, live),
    specificity: specificity(linkedCount, live),
  };
}

export async function keyedMemories(
  ctx: RequestContext,
  tenant: string,
  links: VisibleLink[],
): Promise<KeyedMemory[]> {
  if (links.length === 0) return [];
  const paths = ctx.layout.signals(tenant);
  const pipeline = ctx.redis.pipeline();
  for (const link of links) pipeline.hmget(paths.memory(link.card.id), ...depthFields);
  const rows = (await pipeline.exec()) ?? [];
  const now = ctx.clock();
  return links.map((link, i) => {
    const [value, at] = (rows[i]?.[1] ?? []) as (string | null)[];
    return {
      id: link.card.id,
      slot: link.card.slot,
      title: link.card.title,
      kind: link.card.kind,
      depth: value != null && at != null ? depthAt({ value: Number(value), at }, now, ctx.depth) : 0,
      linkWeight: link.weight,
    };
  });
}

export { resolveKey };
