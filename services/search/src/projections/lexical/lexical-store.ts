// The lexical read model in Redis, in generations (the projection runtime's Redis
// generations under `<prefix>search:lexical:`). Each generation is one RediSearch index with
// its documents and its synonym table, all under `<prefix>search:lexical:g<n>:`; the active
// one serves queries and receives live events, a rebuild fills a new one and then switches.
import { type MemoryDocument, MemoryDocumentSchema } from "@cairn/contracts";
import {
  type ApplyOutcome,
  createRedisGenerations,
  type ProjectionWriter,
  type RedisCommand,
  type RedisGenerations,
} from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import { documentFields, lexicalSchema } from "./lexical-index.ts";
import {
  bm25Scorer,
  createIndexCommand,
  dropIndexCommand,
  isIndexExistsError,
  isUnknownIndexError,
  type RediSearchModule,
} from "./redisearch.ts";

export type LexicalWrite =
  | { kind: "document"; document: MemoryDocument }
  | { kind: "synonyms"; tenant: string; groups: string[][] };

export type LexicalHit = { id: string; score: number; document: MemoryDocument };

export type LexicalStore = {
  readonly module: RediSearchModule;
  readonly generations: RedisGenerations;
  activeGeneration(): Promise<number | null>;
  checkpoint(generation: number): Promise<number>;
  loadDocuments(generation: number, ids: readonly string[]): Promise<Map<string, MemoryDocument>>;
  loadDocument(generation: number, id: string): Promise<MemoryDocument | null>;
  loadSynonyms(generation: number, tenant: string): Promise<string[][]>;
  /** Writes documents and synonym tables and moves the checkpoint, atomically (compare-and-set). */
  commit(
    generation: number,
    writer: ProjectionWriter,
    expected: number,
    next: number,
    writes: readonly LexicalWrite[],
  ): Promise<ApplyOutcome>;
  /** Runs a query on a generation's index: BM25 scores, best first, with the documents. */
  search(generation: number, query: string, limit: number): Promise<LexicalHit[]>;
  /** Documents only, for filters that need no scores (backlinks, slot lookups). */
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
  const gen = (g: number) => `${base}g${g}:`;
  const indexName = (g: number) => `${gen(g)}idx`;
  const docPrefix = (g: number) => `${gen(g)}doc:`;
  const docKey = (g: number, id: string) => `${docPrefix(g)}${id}`;
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

  const generations = createRedisGenerations(redis, base, {
    createData: createIndex,
    // After a Redis restart without its data the active generation has no index: make it again.
    ensureData: async (g) => {
      if (!(await indexExists(g))) await createIndex(g);
    },
    hasData: indexExists,
    dropData: async (g) => {
      const [command, ...args] = dropIndexCommand(module, indexName(g));
      try {
        await redis.call(command as string, ...args);
      } catch (error) {
        if (!isUnknownIndexError(error)) throw error;
      }
    },
  });

  /** A document as Redis commands: FT.ADD on 1.x; on 2.x a fresh hash the index follows. */
  function documentCommands(g: number, doc: MemoryDocument): RedisCommand[] {
    const key = docKey(g, doc.id);
    const fields = documentFields(doc);
    if (module.generation === 1)
      return [["FT.ADD", indexName(g), key, "1.0", "REPLACE", "FIELDS", ...fields]];
    return [
      ["DEL", key],
      ["HSET", key, ...fields],
    ];
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

  return {
    module,
    generations,
    indexName,
    docKey,
    activeGeneration: () => generations.active(),
    checkpoint: (g) => generations.checkpoint(g),
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
    commit(g, writer, expected, next, writes) {
      const commands = writes.flatMap((w): RedisCommand[] =>
        w.kind === "document"
          ? documentCommands(g, w.document)
          : [["HSET", synonymsKey(g), w.tenant, JSON.stringify(w.groups)]],
      );
      return generations.commit(g, writer, expected, next, commands);
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
}
