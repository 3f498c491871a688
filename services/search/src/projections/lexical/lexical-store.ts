// The lexical read model in Redis, in generations. Each generation is one RediSearch index
// with its documents, its checkpoint and its synonym table, all under
// `<prefix>search:lexical:g<n>:`. `search:lexical:active` names the generation that serves
// queries and receives live events; a rebuild fills a new generation and then switches.
import { type MemoryDocument, MemoryDocumentSchema } from "@cairn/contracts";
import type { Redis } from "ioredis";
import { documentFields, lexicalSchema } from "./lexical-index.ts";
import {
  bm25Scorer,
  type CommitOutcome,
  commitScript,
  createIndexCommand,
  dropIndexCommand,
  isIndexExistsError,
  isUnknownIndexError,
  type RediSearchModule,
  switchScript,
} from "./redisearch.ts";

/** Who may write a generation: the live projection (the active one) or the rebuild filling it. */
export type LexicalWriter = { kind: "live" } | { kind: "builder"; token: string };

export type LexicalWrite =
  | { kind: "document"; document: MemoryDocument }
  | { kind: "synonyms"; tenant: string; groups: string[][] };

export type LexicalHit = { id: string; score: number; document: MemoryDocument };

export type LexicalGenerationInfo = { generation: number; checkpoint: number; builder: string | null };

export type LexicalStore = {
  readonly module: RediSearchModule;
  activeGeneration(): Promise<number | null>;
  /** The active generation, creating the first one (empty, checkpoint 0) when there is none. */
  ensureActiveGeneration(): Promise<number>;
  /** Makes sure the index of a generation exists (after a Redis restart without its data). */
  ensureIndex(generation: number): Promise<void>;
  /** A new, empty generation owned by the builder `token`. */
  createGeneration(token: string): Promise<number>;
  /** Generations being built (not active), for resuming an interrupted rebuild. */
  buildingGenerations(): Promise<LexicalGenerationInfo[]>;
  /** Generations that are neither active nor being built (left by a switch that did not drop them). */
  leftoverGenerations(): Promise<number[]>;
  /** Takes over a building generation (a rerun of an interrupted rebuild). */
  claimGeneration(generation: number, token: string): Promise<void>;
  checkpoint(generation: number): Promise<number>;
  loadDocuments(generation: number, ids: readonly string[]): Promise<Map<string, MemoryDocument>>;
  loadDocument(generation: number, id: string): Promise<MemoryDocument | null>;
  loadSynonyms(generation: number, tenant: string): Promise<string[][]>;
  commit(
    generation: number,
    writer: LexicalWriter,
    expected: number,
    next: number,
    writes: readonly LexicalWrite[],
  ): Promise<CommitOutcome>;
  /** Holds live writes back (for `ttlMs`) while a rebuild catches up and switches. */
  pause(token: string, ttlMs: number): Promise<void>;
  resume(token: string): Promise<void>;
  isPaused(): Promise<boolean>;
  switchActive(
    from: number | null,
    to: number,
    checkpoint: number,
    token: string,
  ): Promise<"ok" | "moved" | "behind">;
  dropGeneration(generation: number): Promise<void>;
  /** Runs a query on a generation's index: BM25 scores, best first, with the documents. */
  search(generation: number, query: string, limit: number): Promise<LexicalHit[]>;
  /** Ids only, for filters that need no scores (backlinks, slot lookups). */
  searchDocuments(generation: number, query: string, limit: number): Promise<MemoryDocument[]>;
  /** Documents matching `query`, most recently updated first. */
  listDocuments(generation: number, query: string, limit: number): Promise<MemoryDocument[]>;
  indexName(generation: number): string;
  docKey(generation: number, id: string): string;
};

export type LexicalStoreOptions = { redis: Redis; module: RediSearchModule; prefix: string };

function parseDocument(json: unknown): MemoryDocument | null {
  if (typeof json !== "string") return null;
  return MemoryDocumentSchema.parse(JSON.parse(json));
}

/** FT.SEARCH replies as a flat list: total, then per hit key, [score], [field, value, ...]. */
function parseSearchReply(
  reply: unknown[],
  withScores: boolean,
): { key: string; score: number; json: unknown }[] {
  const hits: { key: string; score: number; json: unknown }[] = [];
  const step = withScores ? 3 : 2;
  for (let i = 1; i + step - 1 < reply.length; i += step) {
    const key = String(reply[i]);
    const score = withScores ? Number(reply[i + 1]) : 0;
    const fields = reply[i + step - 1] as unknown[] | null;
    let json: unknown = null;
    for (let f = 0; fields && f + 1 < fields.length; f += 2)
      if (String(fields[f]) === "json") json = fields[f + 1];
    hits.push({ key, score, json });
  }
  return hits;
}

export function createLexicalStore(options: LexicalStoreOptions): LexicalStore {
  const { redis, module } = options;
  const base = `${options.prefix}search:lexical:`;
  const activeKey = `${base}active`;
  const counterKey = `${base}generations`;
  const pauseKey = `${base}pause`;
  const gen = (g: number) => `${base}g${g}:`;
  const indexName = (g: number) => `${gen(g)}idx`;
  const docPrefix = (g: number) => `${gen(g)}doc:`;
  const docKey = (g: number, id: string) => `${docPrefix(g)}${id}`;
  const checkpointKey = (g: number) => `${gen(g)}checkpoint`;
  const builderKey = (g: number) => `${gen(g)}builder`;
  const synonymsKey = (g: number) => `${gen(g)}synonyms`;

  async function createIndex(g: number): Promise<void> {
    const [command, ...args] = createIndexCommand(module, indexName(g), docPrefix(g), lexicalSchema);
    try {
      await redis.call(command as string, ...args);
    } catch (error) {
      if (!isIndexExistsError(error)) throw error;
    }
  }

  async function indexExists(g: number): Promise<boolean> {
    try {
      await redis.call("FT.INFO", indexName(g));
      return true;
    } catch (error) {
      if (isUnknownIndexError(error)) return false;
      throw error;
    }
  }

  async function findDocuments(g: number, query: string, limit: number, order: string[]) {
    const reply = (await redis.call(
      "FT.SEARCH",
      indexName(g),
      query,
      "RETURN",
      "1",
      "json",
      ...order,
      "LIMIT",
      "0",
      String(limit),
    )) as unknown[];
    return parseSearchReply(reply, false).flatMap((hit) => {
      const document = parseDocument(hit.json);
      return document ? [document] : [];
    });
  }

  const store: LexicalStore = {
    module,
    indexName,
    docKey,
    async activeGeneration() {
      const value = await redis.get(activeKey);
      return value === null ? null : Number(value);
    },
    async ensureActiveGeneration() {
      const active = await store.activeGeneration();
      if (active !== null) return active;
      const g = await redis.incr(counterKey);
      await createIndex(g);
      if ((await redis.set(activeKey, String(g), "NX")) === "OK") return g;
      // Another writer created the first generation at the same moment: use theirs.
      await store.dropGeneration(g);
      return (await store.activeGeneration()) as number;
    },
    async ensureIndex(g) {
      if (!(await indexExists(g))) await createIndex(g);
    },
    async createGeneration(token) {
      const g = await redis.incr(counterKey);
      await redis.set(builderKey(g), token);
      await createIndex(g);
      return g;
    },
    async buildingGenerations() {
      const last = Number((await redis.get(counterKey)) ?? 0);
      const active = await store.activeGeneration();
      const out: LexicalGenerationInfo[] = [];
      for (let g = 1; g <= last; g += 1) {
        if (g === active) continue;
        const [builder, checkpoint] = await redis.mget(builderKey(g), checkpointKey(g));
        if (builder === null || builder === undefined) continue;
        out.push({ generation: g, builder, checkpoint: Number(checkpoint ?? 0) });
      }
      return out;
    },
    async leftoverGenerations() {
      const last = Number((await redis.get(counterKey)) ?? 0);
      const active = await store.activeGeneration();
      const out: number[] = [];
      for (let g = 1; g <= last; g += 1) {
        if (g === active || (await redis.exists(builderKey(g))) === 1) continue;
        if ((await redis.exists(checkpointKey(g))) === 1 || (await indexExists(g))) out.push(g);
      }
      return out;
    },
    async claimGeneration(g, token) {
      await redis.set(builderKey(g), token);
      await store.ensureIndex(g);
    },
    async checkpoint(g) {
      return Number((await redis.get(checkpointKey(g))) ?? 0);
    },
    async loadDocuments(g, ids) {
      const out = new Map<string, MemoryDocument>();
      if (ids.length === 0) return out;
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hget(docKey(g, id), "json");
      const results = (await pipeline.exec()) ?? [];
      results.forEach(([error, json], i) => {
        if (error) throw error;
        const doc = parseDocument(json);
        if (doc) out.set(ids[i] as string, doc);
      });
      return out;
    },
    async loadDocument(g, id) {
      return parseDocument(await redis.hget(docKey(g, id), "json"));
    },
    async loadSynonyms(g, tenant) {
      const json = await redis.hget(synonymsKey(g), tenant);
      return json === null ? [] : (JSON.parse(json) as string[][]);
    },
    async commit(g, writer, expected, next, writes) {
      const keys = [
        writer.kind === "live" ? activeKey : builderKey(g),
        pauseKey,
        checkpointKey(g),
        ...writes.map((w) => (w.kind === "document" ? docKey(g, w.document.id) : synonymsKey(g))),
      ];
      const argv: string[] = [
        writer.kind === "live" ? String(g) : writer.token,
        String(expected),
        String(next),
        String(module.generation),
        indexName(g),
        writer.kind === "live" ? "1" : "0",
      ];
      for (const write of writes) {
        const fields =
          write.kind === "document"
            ? documentFields(write.document)
            : [write.tenant, JSON.stringify(write.groups)];
        argv.push(write.kind === "document" ? "doc" : "hash", String(fields.length), ...fields);
      }
      return (await redis.eval(commitScript, keys.length, ...keys, ...argv)) as CommitOutcome;
    },
    async pause(token, ttlMs) {
      await redis.set(pauseKey, token, "PX", ttlMs);
    },
    async resume(token) {
      if ((await redis.get(pauseKey)) === token) await redis.del(pauseKey);
    },
    async isPaused() {
      return (await redis.exists(pauseKey)) === 1;
    },
    async switchActive(from, to, checkpoint, token) {
      if (from === null) {
        const set = await redis.set(activeKey, String(to), "NX");
        if (set !== "OK") return "moved";
        await redis.del(builderKey(to));
        await store.resume(token);
        return "ok";
      }
      const keys = [activeKey, checkpointKey(from), checkpointKey(to), builderKey(to), pauseKey];
      return (await redis.eval(
        switchScript,
        keys.length,
        ...keys,
        String(from),
        String(to),
        String(checkpoint),
        token,
      )) as "ok" | "moved" | "behind";
    },
    async dropGeneration(g) {
      const [command, ...args] = dropIndexCommand(module, indexName(g));
      try {
        await redis.call(command as string, ...args);
      } catch (error) {
        if (!isUnknownIndexError(error)) throw error;
      }
      // Documents left behind (written while the index was missing) and the bookkeeping keys.
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${gen(g)}*`, "COUNT", 1000);
        cursor = next;
        if (keys.length > 0) await redis.unlink(...keys);
      } while (cursor !== "0");
    },
    async search(g, query, limit) {
      const reply = (await redis.call(
        "FT.SEARCH",
        indexName(g),
        query,
        "WITHSCORES",
        "SCORER",
        bm25Scorer(module),
        "RETURN",
        "1",
        "json",
        "LIMIT",
        "0",
        String(limit),
      )) as unknown[];
      const prefix = docPrefix(g);
      return parseSearchReply(reply, true).flatMap((hit) => {
        const document = parseDocument(hit.json);
        return document ? [{ id: hit.key.slice(prefix.length), score: hit.score, document }] : [];
      });
    },
    searchDocuments: (g, query, limit) => findDocuments(g, query, limit, []),
    listDocuments: (g, query, limit) => findDocuments(g, query, limit, ["SORTBY", "updated", "DESC"]),
  };
  return store;
}
