// The statistics BM25 needs, per tenant, kept by the lexical projection next to its index:
// how many live memories the tenant has (`n`), their total length in terms (`len`), and in how
// many of them each term occurs (`t:<term>`). A live memory is a confirmed, active one (the
// memory model's rule); the others are searchable but do not shape the statistics.
//
// A change of a document takes back what it contributed and adds what it contributes now; a
// term no live memory has any more leaves the hash (a purged memory's words do not linger in
// it). Counts are read before the write and the write is a compare-and-set on the checkpoint,
// so a concurrent writer makes this one read again.
import type { MemoryDocument } from "@cairn/contracts";
import { isLive } from "@cairn/memory-model";
import type { RedisCommand } from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import { documentTerms } from "./lexical-index.ts";

/** A document's terms (analysed once per batch by the caller; analysed here by default). */
export type TermsOf = (doc: MemoryDocument) => readonly string[];

export type TenantStatistics = {
  /** Live memories of the tenant. */
  documents: number;
  averageLength: number;
  /** Live memories holding each term asked for (0 when none). */
  documentFrequency: Map<string, number>;
};

export type DocumentChange = { document: MemoryDocument; previous: MemoryDocument | undefined };

const termField = (term: string) => `t:${term}`;

/** The commands that bring the tenants' statistics from before these changes to after them. */
export async function statisticsCommands(
  redis: Redis,
  statsKey: (tenant: string) => string,
  changes: readonly DocumentChange[],
  termsOf: TermsOf = documentTerms,
): Promise<RedisCommand[]> {
  const contribution = (doc: MemoryDocument | undefined): readonly string[] =>
    doc && isLive(doc) ? termsOf(doc) : [];
  const perTenant = new Map<string, { delta: Map<string, number>; documents: number; length: number }>();
  for (const { document, previous } of changes) {
    if (!isLive(previous) && !isLive(document)) continue;
    const before = contribution(previous);
    const after = contribution(document);
    const stats = perTenant.get(document.tenant) ?? { delta: new Map(), documents: 0, length: 0 };
    const was = new Set(before);
    const now = new Set(after);
    for (const t of was) if (!now.has(t)) stats.delta.set(t, (stats.delta.get(t) ?? 0) - 1);
    for (const t of now) if (!was.has(t)) stats.delta.set(t, (stats.delta.get(t) ?? 0) + 1);
    stats.documents += (isLive(document) ? 1 : 0) - (isLive(previous) ? 1 : 0);
    stats.length += after.length - before.length;
    perTenant.set(document.tenant, stats);
  }
  const commands: RedisCommand[] = [];
  for (const [tenant, stats] of perTenant) {
    const key = statsKey(tenant);
    const falling = [...stats.delta].filter(([, d]) => d < 0).map(([t]) => t);
    const prior = falling.length > 0 ? await redis.hmget(key, ...falling.map(termField)) : [];
    const counts = new Map(falling.map((t, i) => [t, Number(prior[i] ?? 0)]));
    for (const [term, d] of stats.delta) {
      if (d === 0) continue;
      if (d < 0 && (counts.get(term) ?? 0) + d <= 0) commands.push(["HDEL", key, termField(term)]);
      else commands.push(["HINCRBY", key, termField(term), d]);
    }
    if (stats.documents !== 0) commands.push(["HINCRBY", key, "n", stats.documents]);
    if (stats.length !== 0) commands.push(["HINCRBY", key, "len", stats.length]);
  }
  return commands;
}

/** A tenant's statistics for the terms of a query (one round trip). */
export async function readStatistics(
  redis: Redis,
  key: string,
  terms: readonly string[],
): Promise<TenantStatistics> {
  return parseStatistics(terms, await redis.hmget(key, ...statisticsFields(terms)));
}

/** The fields of a tenant's statistics hash that hold these terms' statistics. */
export function statisticsFields(terms: readonly string[]): string[] {
  return ["n", "len", ...terms.map(termField)];
}

/** The statistics of `terms` from the values of their `statisticsFields`, in that order. */
export function parseStatistics(
  terms: readonly string[],
  values: readonly (string | null | undefined)[],
): TenantStatistics {
  const documents = Number(values[0] ?? 0);
  const length = Number(values[1] ?? 0);
  return {
    documents,
    averageLength: documents > 0 ? length / documents : 0,
    documentFrequency: new Map(terms.map((t, i) => [t, Number(values[i + 2] ?? 0)])),
  };
}
