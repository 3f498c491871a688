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
import {
  isMemoryEvent,
  type MemoryEvent,
  memoryEventTypes,
  memoryIdOfStream,
  recordedEventType,
} from "@cairn/memory-model";
import {
  applyEventByEvent,
  createRedisGenerations,
  type Projection,
  type RedisWrites,
  snapshotRedisPrefix,
} from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import { type SignalPaths, signalsLayout } from "../../store/redis-layout.ts";
import { normalizeLabel, topicTerms } from "../../text/analyze-text.ts";
import { evolveMemoryCard, isLive, type MemoryCard } from "../memory-card/memory-card.ts";
import { repairCards } from "../repair-cards.ts";
import {
  addLog2,
  attentionIncrement,
  type DepthSettings,
  heatExponent,
  reinforceDepth,
} from "./signal-math.ts";

export type SignalsProjectionSettings = {
  redis: Redis;
  /** The generations' base key (`<prefix>signals:`). */
  base: string;
  depth: DepthSettings;
  hotHalfLifeDays: number;
  /** Reads a memory stream from the log, for repair. */
  readStream: (streamId: string) => Promise<DecodedEvent[]>;
  /** A tenant's own events of these types up to a position, decoded, text opened (after a purge). */
  readTenantLog: (tenant: string, position: number, types: readonly EventType[]) => Promise<DecodedEvent[]>;
};

type Io = { redis: Redis; writes: RedisWrites; paths: SignalPaths };

const creations = new Set<string>(Object.values(recordedEventType));

/**
 * A recall is a deliberate read when the memory was opened (no query: `read_memory`) or
 * reached through a key (`viaKey`, or the gateway's `key:<label>` when it had no key id); a
 * recall with a query is a search or context listing that merely showed it.
 */
export function isDeliberateRead(data: { viaKey: string | null; query: string | null }): boolean {
  return data.viaKey !== null || data.query === null || data.query.startsWith("key:");
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

export async function readCard(redis: Redis, key: string): Promise<MemoryCard | undefined> {
  const raw = await redis.get(key);
  return raw === null ? undefined : (JSON.parse(raw) as MemoryCard);
}

export async function readTenantSettings(redis: Redis, key: string): Promise<TenantSettings> {
  const raw = await redis.get(key);
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

async function applyMemoryEvent(event: MemoryEvent, io: Io, settings: SignalsProjectionSettings) {
  const { paths } = io;
  const id = memoryIdOfStream(event.streamId) as string;
  const before = await readCard(io.redis, paths.card(id));
  const after = evolveMemoryCard(before, event);
  await applyCardChange(
    io,
    settings,
    before,
    after,
    event.type === "memory.purged",
    creations.has(event.type),
    event.meta.recordedAt,
  );
}

/**
 * What a card going from `before` to `after` changes in the tenant's signals: statistics and
 * co-occurrence follow the live memories; attention and hot topics count what is written.
 */
export async function applyCardChange(
  io: Io,
  settings: Pick<SignalsProjectionSettings, "hotHalfLifeDays">,
  before: MemoryCard | undefined,
  after: MemoryCard,
  purged: boolean,
  written: boolean,
  at: string,
): Promise<void> {
  const { paths } = io;
  const id = after.id;
  io.writes.set(paths.card(id), JSON.stringify(after));
  if (isLive(before) !== isLive(after)) io.writes.incrby(paths.liveCount, isLive(after) ? 1 : -1);

  // Lexical statistics (document frequency, total length) follow the live memories: what a
  // memory contributed before the event is taken back, what it contributes after is added.
  // A term no live memory has any more leaves the statistics altogether.
  const termsBefore = new Set(isLive(before) ? before.terms : []);
  const termsAfter = new Set(isLive(after) ? after.terms : []);
  const leaving = [...termsBefore].filter((t) => !termsAfter.has(t));
  const priorFrequency = leaving.length > 0 ? await io.redis.hmget(paths.documentFrequency, ...leaving) : [];
  const vanishing: string[] = [];
  leaving.forEach((term, i) => {
    if (Number(priorFrequency[i] ?? 0) <= 1) {
      io.writes.hdel(paths.documentFrequency, term);
      vanishing.push(term);
    } else io.writes.hincrby(paths.documentFrequency, term, -1);
  });
  for (const term of termsAfter)
    if (!termsBefore.has(term)) io.writes.hincrby(paths.documentFrequency, term, 1);
  const lengthChange = (isLive(after) ? after.length : 0) - (isLive(before) ? before.length : 0);
  if (lengthChange !== 0) io.writes.incrby(paths.totalLength, lengthChange);
  if (purged && vanishing.length > 0) {
    // Words only the erased memory had do not stay behind in the term signals either.
    io.writes.zrem(paths.attention, ...vanishing);
    io.writes.zrem(paths.hot, ...vanishing);
  }

  // Co-occurrence, the same way; counts that reach zero are removed, so an entity that no
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
      if (event.data.query) heat([...new Set(topicTerms(event.data.query))], event.meta.recordedAt);
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

async function addHeat(io: Io, key: string, terms: string[], at: string, halfLifeDays: number) {
  if (terms.length === 0) return;
  const exponent = heatExponent(at, halfLifeDays);
  const current = await io.redis.zmscore(key, ...terms);
  terms.forEach((term, i) => {
    const value = current[i];
    io.writes.zadd(
      key,
      addLog2(value === null || value === undefined ? undefined : Number(value), exponent),
      term,
    );
  });
}

async function applyFeedback(event: DecodedEventOf<"feedback.given">, io: Io) {
  io.writes.hset(io.paths.feedback(event.data.memoryId), event.data.agent, event.data.useful ? 1 : -1);
}

async function applyRecalled(
  event: DecodedEventOf<"memories.recalled">,
  io: Io,
  settings: SignalsProjectionSettings,
) {
  const { data } = event;
  const { paths } = io;
  const ids = [...new Set(data.memoryIds)];
  const at = event.meta.recordedAt;
  for (const id of ids) {
    io.writes.hincrby(paths.recalls(id), "count", 1);
    io.writes.hset(paths.recalls(id), "lastAt", at);
  }
  // Only a deliberate read deepens a memory; being listed by a search does not.
  if (isDeliberateRead(data)) {
    const depths = await Promise.all(ids.map((id) => io.redis.hmget(paths.depth(id), "value", "at")));
    ids.forEach((id, i) => {
      const [value, since] = depths[i] ?? [];
      const state = value != null && since != null ? { value: Number(value), at: since } : undefined;
      const next = reinforceDepth(state, at, settings.depth);
      io.writes.hset(paths.depth(id), { value: next.value, at: next.at });
      io.writes.hincrby(paths.recalls(id), "reads", 1);
      io.writes.hset(paths.recalls(id), "lastReadAt", at);
    });
  }
  // What agents ask about now is a hot topic too.
  if (data.query)
    await addHeat(io, paths.hot, [...new Set(topicTerms(data.query))], at, settings.hotHalfLifeDays);
}

async function applySettings(event: DecodedEventOf<"tenant.settings_changed">, io: Io) {
  const current = await readTenantSettings(io.redis, io.paths.settings);
  io.writes.set(io.paths.settings, JSON.stringify(mergeTenantSettings(current, event.data)));
}

export const signalsHandles: ReadonlySet<EventType> = new Set<EventType>([
  ...memoryEventTypes,
  "feedback.given",
  "memories.recalled",
  "tenant.settings_changed",
]);

export function signalsProjection(settings: SignalsProjectionSettings): Projection {
  const { redis } = settings;
  const generations = createRedisGenerations(redis, settings.base);
  const io = (generation: number, tenant: string, writes: RedisWrites): Io => ({
    redis,
    writes,
    paths: signalsLayout(generations.prefix(generation))(tenant),
  });
  const refoldTermSignals = async (at: Io, tenant: string, position: number) => {
    const events = await settings.readTenantLog(tenant, position, termSignalEventTypes);
    writeTermSignals(at, foldTermSignals(events, settings.hotHalfLifeDays));
  };
  return {
    name: "ranking.signals",
    handles: signalsHandles,
    readsText: true,
    generations,
    snapshot: (generation) => snapshotRedisPrefix(redis, generations.prefix(generation)),
    apply: (batch) => {
      // After a tenant's last purge in the batch its attention and hot topics are folded again
      // from the log, where the purged text is unreadable: a rebuild gives the same.
      const lastPurge = new Map<string, number>();
      for (const e of batch.events) if (e.type === "memory.purged") lastPurge.set(e.meta.tenant, e.position);
      return applyEventByEvent(generations, batch, async (event, writes, generation) => {
        const at = io(generation, event.meta.tenant, writes);
        if (event.streamType === "memory") {
          await applyMemoryEvent(event as MemoryEvent, at, settings);
          if (lastPurge.get(event.meta.tenant) === event.position)
            await refoldTermSignals(at, event.meta.tenant, event.position);
          return;
        }
        if (event.type === "feedback.given") return applyFeedback(event, at);
        if (event.type === "memories.recalled") return applyRecalled(event, at, settings);
        if (event.type === "tenant.settings_changed") return applySettings(event, at);
      });
    },
    repair: (generation, events) =>
      repairCards({
        generations,
        generation,
        events,
        readStream: settings.readStream,
        cardKey: (tenant, id) => signalsLayout(generations.prefix(generation))(tenant).card(id),
        redis,
        // Activity and settings do not depend on order: applied as they come.
        applyActivity: (event, writes) => {
          const at = io(generation, event.meta.tenant, writes);
          if (event.type === "feedback.given") return applyFeedback(event, at);
          if (event.type === "memories.recalled") return applyRecalled(event, at, settings);
          if (event.type === "tenant.settings_changed") return applySettings(event, at);
          return Promise.resolve();
        },
        applyCard: (before, after, writes, event) =>
          applyCardChange(
            io(generation, after.tenant, writes),
            settings,
            before,
            after,
            Boolean(after.purgedAt) && !before?.purgedAt,
            before === undefined,
            event.meta.recordedAt,
          ),
        afterPurge: (tenant, checkpoint, writes) =>
          refoldTermSignals(io(generation, tenant, writes), tenant, checkpoint),
      }),
    probe: async () => void (await redis.ping()),
  };
}
