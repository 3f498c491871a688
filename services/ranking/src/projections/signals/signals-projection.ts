// The signals read model: feedback, recalls, depth, attention, hot topics, entity
// co-occurrence and the tenant's settings, per tenant, in Redis (a projection of the log with
// generations, so it can be rebuilt while it serves).
import {
  type DecodedEvent,
  type DecodedEventOf,
  defaultTenantSettings,
  type EventType,
  type TenantSettings,
  TenantSettingsSchema,
} from "@cairn/contracts";
import { isMemoryEvent, memoryEventTypes, memoryIdOfStream, recordedEventType } from "@cairn/memory-model";
import type { Projection } from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import { depthFields, type SignalPaths, signalsLayout, voteField } from "../../store/redis-layout.ts";
import { normalizeLabel, topicTerms } from "../../text/analyze-text.ts";
import {
  type CardChange,
  type CardIo,
  type CardProjectionSettings,
  cardProjection,
} from "../card-projection.ts";
import { evolveMemoryCard, isLive, type MemoryCard } from "../memory-card/memory-card.ts";
import {
  addLog2,
  attentionIncrement,
  type DepthSettings,
  type DepthState,
  heatExponent,
  reinforceDepth,
} from "./signal-math.ts";

/** `base` is `<prefix>signals:`. */
export type SignalsProjectionSettings = CardProjectionSettings & {
  depth: DepthSettings;
  hotHalfLifeDays: number;
  /** A tenant's own events of these types up to a position, decoded, text opened (after a purge). */
  readTenantLog: (tenant: string, position: number, types: readonly EventType[]) => Promise<DecodedEvent[]>;
};

type Io = CardIo<SignalPaths>;

const creations = new Set<string>(Object.values(recordedEventType));

type RecallData = DecodedEventOf<"memories.recalled">["data"];

/**
 * A recall is a deliberate read when the memory was opened (no query: `read_memory`) or
 * reached through a key (`viaKey`, or the gateway's `key:<label>` when it had no key id); a
 * recall with a query is a search or context listing that merely showed it. Ingest records
 * which (`read`); a recall recorded before it did says it by its query.
 */
export function isDeliberateRead(data: Pick<RecallData, "viaKey" | "query" | "read">): boolean {
  return data.read ?? (data.viaKey !== null || data.query === null || data.query.startsWith("key:"));
}

/** The distinct topic terms of a recall's query: recorded by ingest, or analysed from an older event's query. */
function recallTerms(data: RecallData): string[] {
  return [...new Set(data.terms ?? (data.query ? topicTerms(data.query) : []))];
}

/** At most this many entities of one memory take part in co-occurrence (pairs grow quadratically). */
export const maxCooccurringEntities = 24;

/** The normalised entity labels (entities and agent keys) a live memory contributes. */
export function entityLabelsOf(card: MemoryCard | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!isLive(card)) return out;
  for (const label of [...card.entities.map((e) => e.text), ...card.keys]) {
    const norm = normalizeLabel(label);
    if (norm && !out.has(norm)) out.set(norm, label);
    if (out.size >= maxCooccurringEntities) break;
  }
  return out;
}

function pairs(labels: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < labels.length; i += 1)
    for (let j = i + 1; j < labels.length; j += 1) out.push([labels[i] as string, labels[j] as string]);
  return out;
}

export async function readTenantSettings(redis: Redis, key: string): Promise<TenantSettings> {
  return parseTenantSettings(await redis.get(key));
}

/** Settings as the read model stores them (defaults when there are none or they do not parse). */
export function parseTenantSettings(raw: string | null): TenantSettings {
  if (raw === null) return defaultTenantSettings;
  const parsed = TenantSettingsSchema.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : defaultTenantSettings;
}

/** Settings after a partial change; fields the change leaves out keep their value. */
export function mergeTenantSettings(
  current: TenantSettings,
  change: Partial<TenantSettings>,
): TenantSettings {
  const defined = Object.entries(change).filter(([, value]) => value !== undefined);
  return { ...current, ...Object.fromEntries(defined) };
}

/**
 * What a card going from `before` to `after` changes in the tenant's signals: statistics and
 * co-occurrence follow the live memories; attention and hot topics count what is written.
 */
export async function applyCardChange(
  io: Io,
  change: CardChange,
  settings: Pick<SignalsProjectionSettings, "hotHalfLifeDays">,
): Promise<void> {
  const { paths } = io;
  const { before, after, event } = change;
  // Live, the event says it: a purge, a record. A repair compares the card with what was held.
  const purged = change.repair
    ? Boolean(after.purgedAt) && !before?.purgedAt
    : event.type === "memory.purged";
  const written = change.repair ? before === undefined : creations.has(event.type);
  const at = event.meta.recordedAt;
  const id = after.id;
  io.writes.set(paths.card(id), JSON.stringify(after));
  if (isLive(before) !== isLive(after)) io.writes.incrby(paths.liveCount, isLive(after) ? 1 : -1);

  // (A purge's words leave attention and hot topics when they are folded again from the log,
  // after the tenant's last purge of the batch: see `afterPurge`.)

  // Co-occurrence follows the live memories: counts that reach zero are removed, so an entity that no
  // live memory names any more is forgotten.
  const was = entityLabelsOf(before);
  const now = entityLabelsOf(after);
  const gone = [...was.keys()].filter((norm) => !now.has(norm));
  const priorCounts = gone.length > 0 ? await io.redis.zmscore(paths.entityCounts, ...gone) : [];
  gone.forEach((norm, i) => {
    io.writes.zincrby(paths.entityCounts, -1, norm);
    if (Number(priorCounts[i] ?? 0) <= 1) io.writes.hdel(paths.entityLabels, norm);
  });
  for (const [norm, label] of now) {
    if (!was.has(norm)) io.writes.zincrby(paths.entityCounts, 1, norm);
    io.writes.hsetnx(paths.entityLabels, norm, label);
  }
  if (gone.length > 0) io.writes.zremrangebyscore(paths.entityCounts, "-inf", 0);
  const pairKey = ([a, b]: [string, string]) => `${a}\u0000${b}`;
  const oldPairs = new Set(pairs([...was.keys()].sort()).map(pairKey));
  const newPairs = new Set(pairs([...now.keys()].sort()).map(pairKey));
  const touched = new Set<string>();
  for (const p of oldPairs) {
    if (newPairs.has(p)) continue;
    const [a, b] = p.split("\u0000") as [string, string];
    io.writes.zincrby(paths.cooccurrence(a), -1, b);
    io.writes.zincrby(paths.cooccurrence(b), -1, a);
    touched.add(a).add(b);
  }
  for (const norm of touched) io.writes.zremrangebyscore(paths.cooccurrence(norm), "-inf", 0);
  for (const p of newPairs) {
    if (oldPairs.has(p)) continue;
    const [a, b] = p.split("\u0000") as [string, string];
    io.writes.zincrby(paths.cooccurrence(a), 1, b);
    io.writes.zincrby(paths.cooccurrence(b), 1, a);
  }

  // Attention and hot topics count what is written: the terms a record or revision adds.
  const added = writtenTerms(before, after, purged, written);
  if (added.length > 0) {
    const increment = attentionIncrement(after.sentiment);
    await addHeat(io, paths.hot, added, at, settings.hotHalfLifeDays);
    for (const term of added) io.writes.zincrby(paths.attention, increment, term);
  }
}

/** The terms a change of a card writes (attention and hot topics count them): a record's, or those a revision adds. */
function writtenTerms(
  before: MemoryCard | undefined,
  after: MemoryCard,
  purged: boolean,
  written: boolean,
): string[] {
  const revisedContent =
    !purged && before !== undefined && JSON.stringify(after.terms) !== JSON.stringify(before.terms);
  if (!written && !revisedContent) return [];
  const old = new Set(written ? [] : (before?.terms ?? []));
  return after.terms.filter((t) => !old.has(t));
}

/** The events that feed attention and hot topics: memory writes, and the queries of recalls. */
export const termSignalEventTypes: readonly EventType[] = [...memoryEventTypes, "memories.recalled"];

/**
 * Attention and hot topics of one tenant folded again from its log, the way the live events
 * built them (same operations, same order, so the same numbers). A purged memory's text is
 * unreadable by then, so what it wrote is gone from them: after a purge they are what a
 * rebuild from the log gives.
 */
export function foldTermSignals(
  events: readonly DecodedEvent[],
  hotHalfLifeDays: number,
): { attention: Map<string, number>; hot: Map<string, number> } {
  const cards = new Map<string, MemoryCard>();
  const attention = new Map<string, number>();
  const hot = new Map<string, number>();
  const heat = (terms: readonly string[], at: string) => {
    const exponent = heatExponent(at, hotHalfLifeDays);
    for (const term of terms) hot.set(term, addLog2(hot.get(term), exponent));
  };
  for (const event of events) {
    if (event.type === "memories.recalled") {
      heat(recallTerms(event.data), event.meta.recordedAt);
      continue;
    }
    if (!isMemoryEvent(event)) continue;
    const id = memoryIdOfStream(event.streamId) as string;
    const before = cards.get(id);
    const after = evolveMemoryCard(before, event);
    cards.set(id, after);
    const added = writtenTerms(before, after, event.type === "memory.purged", creations.has(event.type));
    if (added.length === 0) continue;
    const increment = attentionIncrement(after.sentiment);
    heat(added, event.meta.recordedAt);
    for (const term of added) attention.set(term, (attention.get(term) ?? 0) + increment);
  }
  return { attention, hot };
}

/** Replaces a tenant's attention and hot topics with values folded from its log. */
function writeTermSignals(io: Io, folded: ReturnType<typeof foldTermSignals>) {
  io.writes.del(io.paths.attention, io.paths.hot);
  for (const [key, values] of [
    [io.paths.attention, folded.attention],
    [io.paths.hot, folded.hot],
  ] as const) {
    const entries = [...values];
    for (let i = 0; i < entries.length; i += 500) {
      io.writes.zadd(key, ...entries.slice(i, i + 500).flatMap(([term, score]) => [score, term]));
    }
  }
}

/** Heats `terms` as of `at` (one occurrence each). */
function addHeat(io: Io, key: string, terms: string[], at: string, halfLifeDays: number) {
  return addHeatInTurn(io, key, [{ terms, at }], halfLifeDays);
}

/**
 * Heats each occurrence's terms as of its time, in turn: the terms' heat is read once and
 * moved by each occurrence in order, so the stored heat is what heating them one after another
 * gives (Redis answers a score as the double it stores).
 */
async function addHeatInTurn(
  io: Io,
  key: string,
  occurrences: readonly { terms: readonly string[]; at: string }[],
  halfLifeDays: number,
) {
  const terms = [...new Set(occurrences.flatMap((o) => o.terms))];
  if (terms.length === 0) return;
  const current = await io.redis.zmscore(key, ...terms);
  const heat = new Map<string, number | undefined>();
  terms.forEach((term, i) => {
    const value = current[i];
    heat.set(term, value === null || value === undefined ? undefined : Number(value));
  });
  for (const { terms: heated, at } of occurrences) {
    const exponent = heatExponent(at, halfLifeDays);
    for (const term of new Set(heated)) heat.set(term, addLog2(heat.get(term), exponent));
  }
  for (const [term, value] of heat) if (value !== undefined) io.writes.zadd(key, value, term);
}

async function applyFeedback(event: DecodedEventOf<"feedback.given">, io: Io) {
  io.writes.hset(
    io.paths.memory(event.data.memoryId),
    voteField(event.data.agent),
    event.data.useful ? 1 : -1,
  );
}

/**
 * Recalls of one tenant, in order (a command's reads come as one run): each memory's recall
 * count and time, the depth of what was deliberately read, and the hot topics. What they read
 * (depth, heat) is read once and moved by each recall in turn.
 */
async function applyRecalls(
  events: readonly DecodedEventOf<"memories.recalled">[],
  io: Io,
  settings: SignalsProjectionSettings,
) {
  const { paths } = io;
  const recalls = events.map(({ data, meta }) => ({
    ids: [...new Set(data.memoryIds)],
    at: meta.recordedAt,
    // Only a deliberate read deepens a memory; being listed by a search does not.
    deliberate: isDeliberateRead(data),
    terms: recallTerms(data),
  }));
  const deepened = [...new Set(recalls.flatMap((r) => (r.deliberate ? r.ids : [])))];
  const stored = await Promise.all(deepened.map((id) => io.redis.hmget(paths.memory(id), ...depthFields)));
  const depth = new Map<string, DepthState | undefined>();
  deepened.forEach((id, i) => {
    const [value, since] = stored[i] ?? [];
    depth.set(id, value != null && since != null ? { value: Number(value), at: since } : undefined);
  });
  for (const { ids, at, deliberate } of recalls) {
    for (const id of ids) {
      io.writes.hincrby(paths.memory(id), "count", 1);
      io.writes.hset(paths.memory(id), "lastAt", at);
      if (!deliberate) continue;
      const next = reinforceDepth(depth.get(id), at, settings.depth);
      depth.set(id, next);
      io.writes.hset(paths.memory(id), { depth: next.value, depthAt: next.at, lastReadAt: at });
      io.writes.hincrby(paths.memory(id), "reads", 1);
    }
  }
  // What agents ask about now is a hot topic too.
  await addHeatInTurn(io, paths.hot, recalls, settings.hotHalfLifeDays);
}

async function applySettings(event: DecodedEventOf<"tenant.settings_changed">, io: Io) {
  const current = await readTenantSettings(io.redis, io.paths.settings);
  io.writes.set(io.paths.settings, JSON.stringify(mergeTenantSettings(current, event.data)));
}

/** A tenant's attention and hot topics folded again from its log up to `position`. */
async function refoldTermSignals(
  io: Io,
  tenant: string,
  position: number,
  settings: SignalsProjectionSettings,
) {
  const events = await settings.readTenantLog(tenant, position, termSignalEventTypes);
  writeTermSignals(io, foldTermSignals(events, settings.hotHalfLifeDays));
}

export function signalsProjection(settings: SignalsProjectionSettings): Projection {
  return cardProjection("ranking.signals", settings, signalsLayout, {
    // Terms of the shared text analysis (BM25 statistics are search's, not kept here), and the
    // cues questions are matched on (speaker, times named).
    // v2: a memory's recalls, depth and votes in one hash (one read per memory at a rerank).
    version: "cues-v2-memory-hash",
    applyCard: applyCardChange,
    // Activity and settings do not depend on order: applied as they come.
    activity: {
      "feedback.given": applyFeedback,
      "tenant.settings_changed": applySettings,
    },
    // A command's recalls, as a run: each memory's depth and the terms' heat read once.
    activityRuns: { "memories.recalled": applyRecalls },
    // After a tenant's purge its attention and hot topics are folded again from the log, where
    // the purged text is unreadable: a rebuild gives the same.
    afterPurge: refoldTermSignals,
  });
}
