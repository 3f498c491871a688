// The key graph read model: keys (label, type, aliases), key→memory links with Hebbian
// weights, and a label index to resolve and merge keys.
//
// Who creates key links: ingest writes `key.linked` for the keys an agent gives; this
// projection files each memory under its current keys AND its extracted entities, derived
// from the memory events (so entity keys need no events, and a revision that drops a key
// unlinks it). Key ids are name-based with ingest's formula (store/key-id.ts), so ingest's
// `key.linked` for a label lands on the key already derived from the same memory event.
// Near labels ("deployments", "Deployment", a typo of a concept) are merged into the
// existing key as aliases here, in log order, so a replay derives the same graph; a
// `key.linked` whose id was folded that way resolves to the surviving key. Explicit merges
// (`key.merged`, from ingest's `key.merge`) are applied as they come.
import { type DecodedEventOf, type KeyType, keyIdFor } from "@cairn/contracts";
import { matchesBySimilarity } from "@cairn/memory-model";
import type { Projection, RedisWrites } from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import { type KeyGraphPaths, keysLayout } from "../../store/redis-layout.ts";
import { labelSimilarity, normalizeLabel, similarityForms, trigrams } from "../../text/analyze-text.ts";
import {
  type CardChange,
  type CardIo,
  type CardProjectionSettings,
  cardProjection,
} from "../card-projection.ts";
import { isLive, type MemoryCard } from "../memory-card/memory-card.ts";
import { linkWeight, reinforceLink } from "../signals/signal-math.ts";
import { type KeyLabel, keyLabelsOf } from "./key-labels.ts";

export type KeyRecord = {
  keyId: string;
  label: string;
  norm: string;
  type: KeyType;
  aliases: string[];
  mergedInto: string | null;
};

/** `base` is `<prefix>keys:`. */
export type KeysProjectionSettings = CardProjectionSettings & { mergeSimilarity: number };

type TenantPaths = KeyGraphPaths;
type Io = CardIo<TenantPaths>;

export async function readKey(
  redis: Redis,
  paths: TenantPaths,
  keyId: string,
): Promise<KeyRecord | undefined> {
  const h = await redis.hgetall(paths.key(keyId));
  if (!h.label) return undefined;
  return {
    keyId,
    label: h.label,
    norm: h.norm ?? normalizeLabel(h.label),
    type: (h.type ?? "concept") as KeyType,
    aliases: h.aliases ? (JSON.parse(h.aliases) as string[]) : [],
    mergedInto: h.mergedInto ? h.mergedInto : null,
  };
}

/** Follows merges to the key that stands for `keyId` now. */
export async function resolveKey(
  redis: Redis,
  paths: TenantPaths,
  keyId: string,
): Promise<KeyRecord | undefined> {
  let record = await readKey(redis, paths, keyId);
  for (let hops = 0; record?.mergedInto && hops < 16; hops += 1)
    record = await readKey(redis, paths, record.mergedInto);
  return record;
}

function writeKey(writes: RedisWrites, paths: TenantPaths, record: KeyRecord) {
  writes.hset(paths.key(record.keyId), {
    label: record.label,
    norm: record.norm,
    type: record.type,
    aliases: JSON.stringify(record.aliases),
    mergedInto: record.mergedInto ?? "",
  });
}

/** Resolution state within one event: keys created or touched before its writes commit. */
type Pending = Map<string, KeyRecord>;

/** Every form of a key's label and aliases, for similarity. */
export function keyForms(record: Pick<KeyRecord, "label" | "aliases">): string[] {
  return [...new Set([record.label, ...record.aliases].flatMap(similarityForms))];
}

function indexTrigrams(writes: RedisWrites, paths: TenantPaths, keyId: string, label: string) {
  for (const form of similarityForms(label))
    for (const g of trigrams(form)) writes.sadd(paths.trigram(g), keyId);
}

async function findNearConcept(
  io: Io,
  paths: TenantPaths,
  label: string,
  threshold: number,
): Promise<KeyRecord | undefined> {
  const forms = similarityForms(label);
  const grams = new Set(forms.flatMap((f) => [...trigrams(f)]));
  const candidates = new Set<string>();
  const members = await Promise.all([...grams].map((g) => io.redis.smembers(paths.trigram(g))));
  for (const list of members) for (const id of list) candidates.add(id);
  let best: { record: KeyRecord; similarity: number } | undefined;
  for (const id of [...candidates].sort()) {
    const record = await resolveKey(io.redis, paths, id);
    if (!record || !matchesBySimilarity(record.type)) continue;
    const similarity = labelSimilarity(forms, keyForms(record));
    if (similarity >= threshold && (!best || similarity > best.similarity)) best = { record, similarity };
  }
  return best?.record;
}

/** The key a label is filed under: known label, near concept (merged as an alias), or a new key. */
async function keyForLabel(
  io: Io,
  paths: TenantPaths,
  tenant: string,
  label: KeyLabel,
  pending: Pending,
  settings: KeysProjectionSettings,
): Promise<KeyRecord> {
  for (const record of pending.values()) {
    if (record.norm === label.norm || record.aliases.some((a) => normalizeLabel(a) === label.norm))
      return record;
  }
  const knownId = await io.redis.hget(paths.labels, label.norm);
  if (knownId) {
    const record = await resolveKey(io.redis, paths, knownId);
    if (record) return pending.get(record.keyId) ?? record;
  }
  if (matchesBySimilarity(label.type)) {
    const near = await findNearConcept(io, paths, label.label, settings.mergeSimilarity);
    if (near) {
      const record = pending.get(near.keyId) ?? { ...near };
      if (!record.aliases.includes(label.label)) record.aliases = [...record.aliases, label.label];
      pending.set(record.keyId, record);
      writeKey(io.writes, paths, record);
      io.writes.hset(paths.labels, label.norm, record.keyId);
      indexTrigrams(io.writes, paths, record.keyId, label.label);
      return record;
    }
  }
  const record: KeyRecord = {
    keyId: keyIdFor(tenant, label.label),
    label: label.label,
    norm: label.norm,
    type: label.type,
    aliases: [],
    mergedInto: null,
  };
  pending.set(record.keyId, record);
  writeKey(io.writes, paths, record);
  io.writes.hset(paths.labels, label.norm, record.keyId);
  io.writes.sadd(paths.all, record.keyId);
  if (matchesBySimilarity(record.type))
    for (const g of trigrams(record.norm)) io.writes.sadd(paths.trigram(g), record.keyId);
  return record;
}

/** Removes a key and every way to find it (labels, aliases, trigrams). */
async function dropKey(io: Io, paths: TenantPaths, keyId: string) {
  const record = await readKey(io.redis, paths, keyId);
  if (!record) return;
  for (const form of [record.label, ...record.aliases]) {
    const norm = normalizeLabel(form);
    if ((await io.redis.hget(paths.labels, norm)) === keyId) io.writes.hdel(paths.labels, norm);
    for (const f of similarityForms(form))
      for (const g of trigrams(f)) io.writes.srem(paths.trigram(g), keyId);
  }
  io.writes.srem(paths.all, keyId);
  io.writes.del(paths.key(keyId), paths.links(keyId));
}

/** The card and the memory's key links after a change of its card. */
async function applyCardChange(io: Io, change: CardChange, settings: KeysProjectionSettings) {
  const { paths } = io;
  const { before, after } = change;
  // Erasing: the purge itself, or (in a repair) a card that ends purged.
  const erasing = change.repair ? Boolean(after.purgedAt) : change.event.type === "memory.purged";
  io.writes.set(paths.card(after.id), JSON.stringify(after));
  if (isLive(before) !== isLive(after)) io.writes.incrby(paths.liveCount, isLive(after) ? 1 : -1);
  if (
    before &&
    JSON.stringify(before.keys) === JSON.stringify(after.keys) &&
    JSON.stringify(before.entities) === JSON.stringify(after.entities)
  )
    return;
  await relink(io, paths, after.tenant, after, settings, erasing);
}

/** Files the memory under exactly the keys of its current labels (links it had keep their weight). */
async function relink(
  io: Io,
  paths: TenantPaths,
  tenant: string,
  card: MemoryCard,
  settings: KeysProjectionSettings,
  erasing = false,
) {
  const pending: Pending = new Map();
  const wanted = new Set<string>();
  for (const label of keyLabelsOf(card.keys, card.entities)) {
    const record = await keyForLabel(io, paths, tenant, label, pending, settings);
    wanted.add(record.keyId);
  }
  const current = await io.redis.smembers(paths.memoryKeys(card.id));
  for (const keyId of current) {
    if (wanted.has(keyId)) continue;
    io.writes.zrem(paths.links(keyId), card.id);
    io.writes.srem(paths.memoryKeys(card.id), keyId);
    // An erased memory's entity was its text: a key that only it was filed under goes too.
    if (erasing && (await io.redis.zcard(paths.links(keyId))) <= 1) await dropKey(io, paths, keyId);
  }
  for (const keyId of wanted) {
    io.writes.zadd(paths.links(keyId), "NX", linkWeight.initial, card.id);
    io.writes.sadd(paths.memoryKeys(card.id), keyId);
  }
}

async function applyKeyMerged(event: DecodedEventOf<"key.merged">, io: Io) {
  const { data } = event;
  const { paths } = io;
  const from = await readKey(io.redis, paths, data.keyId);
  const into = await resolveKey(io.redis, paths, data.intoKeyId);
  if (!from || from.mergedInto || !into || into.keyId === from.keyId) return;
  const aliases = [...new Set([...into.aliases, from.label, ...from.aliases, data.alias])].filter(
    (a) => normalizeLabel(a) !== into.norm,
  );
  writeKey(io.writes, paths, { ...into, aliases });
  writeKey(io.writes, paths, { ...from, mergedInto: into.keyId });
  io.writes.srem(paths.all, from.keyId);
  for (const form of [from.label, ...from.aliases, data.alias])
    io.writes.hset(paths.labels, normalizeLabel(form), into.keyId);
  const links = await io.redis.zrange(paths.links(from.keyId), 0, -1, "WITHSCORES");
  for (let i = 0; i + 1 < links.length; i += 2) {
    const memoryId = links[i] as string;
    // The stronger of the two links survives the merge.
    io.writes.zadd(paths.links(into.keyId), "GT", Number(links[i + 1]), memoryId);
    io.writes.srem(paths.memoryKeys(memoryId), from.keyId);
    io.writes.sadd(paths.memoryKeys(memoryId), into.keyId);
  }
  io.writes.del(paths.links(from.keyId));
}

async function applyKeyLinked(event: DecodedEventOf<"key.linked">, io: Io, settings: KeysProjectionSettings) {
  const { data } = event;
  const { paths } = io;
  let record = await resolveKey(io.redis, paths, data.keyId);
  if (!record) {
    const pending: Pending = new Map();
    const label = { label: data.label.trim(), norm: normalizeLabel(data.label), type: data.type };
    if (!label.norm) return;
    record = await keyForLabel(io, paths, event.meta.tenant, label, pending, settings);
    if (record.keyId !== data.keyId) {
      // Ingest's id for a label this read model files under another key: make it resolve there.
      writeKey(io.writes, paths, { ...record, keyId: data.keyId, aliases: [], mergedInto: record.keyId });
    }
  }
  io.writes.zadd(paths.links(record.keyId), "NX", linkWeight.initial, data.memoryId);
  io.writes.sadd(paths.memoryKeys(data.memoryId), record.keyId);
}

/** Hebbian reinforcement: an agent reached these memories through this key. */
async function applyRecalled(event: DecodedEventOf<"memories.recalled">, io: Io) {
  const { data } = event;
  if (!data.viaKey) return;
  const { paths } = io;
  const record = await resolveKey(io.redis, paths, data.viaKey);
  if (!record) return;
  const ids = [...new Set(data.memoryIds)];
  const weights = await io.redis.zmscore(paths.links(record.keyId), ...ids);
  ids.forEach((id, i) => {
    const weight = weights[i];
    if (weight === null || weight === undefined) return;
    io.writes.zadd(paths.links(record.keyId), reinforceLink(Number(weight)), id);
  });
}

export function keysProjection(settings: KeysProjectionSettings): Projection {
  return cardProjection("ranking.keys", settings, keysLayout, {
    // Labels are normalised with the shared text analysis's stems.
    version: "labels-v1",
    applyCard: applyCardChange,
    activity: {
      "key.merged": applyKeyMerged,
      "key.linked": applyKeyLinked,
      "memories.recalled": applyRecalled,
    },
  });
}
