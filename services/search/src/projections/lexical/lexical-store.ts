// The lexical read model in Redis, in generations (the projection runtime's Redis
// generations under `<prefix>search:lexical:`). Each generation is one RediSearch index with
// its documents and its synonym table, all under `<prefix>search:lexical:g<n>:`; the active
// one serves queries and receives live events, a rebuild fills a new one and then switches.
import {
  defaultRetrievalSettings,
  type MemoryDocument,
  MemoryDocumentSchema,
  type Principal,
  type RetrievalSettings,
  RetrievalSettingsSchema,
} from "@cairn/contracts";
import {
  type ApplyOutcome,
  createRedisGenerations,
  type ProjectionWriter,
  type RedisCommand,
  type RedisGenerations,
} from "@cairn/projection-runtime";
import { getTracer, startBatchSpan } from "@cairn/telemetry";
import { memoryTerms } from "@cairn/text-analysis";
import type { Redis } from "ioredis";
import {
  documentFields,
  documentTerms,
  type EpisodePlace,
  episodePlace,
  expirySets,
  identityTag,
  lexicalAnalysisVersion,
  lexicalSchema,
  matchPayload,
  parseMatchPayload,
  placeOfFields,
  visibilityByFields,
  visibleExpirySets,
} from "./lexical-index.ts";
import {
  parseStatistics,
  readStatistics,
  statisticsCommands,
  statisticsFields,
  type TenantStatistics,
} from "./lexical-statistics.ts";
import {
  bm25Scorer,
  createIndexCommand,
  dropIndexCommand,
  isIndexExistsError,
  isUnknownIndexError,
  type RediSearchModule,
} from "./redisearch.ts";

export type LexicalWrite =
  | { kind: "document"; document: MemoryDocument; previous: MemoryDocument | undefined }
  | { kind: "synonyms"; tenant: string; groups: string[][] }
  | { kind: "retrieval"; tenant: string; settings: RetrievalSettings };

/**
 * A match with RediSearch's score, its analysed terms as the index holds them (joined by single
 * spaces, for exact BM25 without splitting them) and how many there are, and its place in its
 * episode.
 */
export type LexicalMatch = {
  id: string;
  score: number;
  terms: string;
  termCount: number;
  place: EpisodePlace | null;
};

/** What a query of a tenant reads first: the serving generation and the tenant's settings in it. */
export type TenantView = {
  generation: number | null;
  synonyms: string[][];
  retrieval: RetrievalSettings;
  /** The statistics of the terms asked for with the view, in the same generation. */
  statistics?: TenantStatistics;
  /**
   * The earliest expiry (ms) of the memories the view's principal may see that have one; null
   * when none has; undefined when the generation does not keep expiries (an older version).
   */
  earliestExpiry?: number | null;
};

export type LexicalStore = {
  readonly module: RediSearchModule;
  readonly generations: RedisGenerations;
  activeGeneration(): Promise<number | null>;
  /**
   * The serving generation with the principal's tenant's synonyms and retrieval settings, the
   * earliest expiry of what the principal may see, and the statistics of `terms` there (a
   * query's own terms), in one round trip.
   */
  tenantView(principal: Principal, terms?: readonly string[]): Promise<TenantView>;
  checkpoint(generation: number): Promise<number>;
  loadDocuments(generation: number, ids: readonly string[]): Promise<Map<string, MemoryDocument>>;
  loadDocument(generation: number, id: string): Promise<MemoryDocument | null>;
  loadSynonyms(generation: number, tenant: string): Promise<string[][]>;
  /** The tenant's retrieval settings (defaults when it set none). */
  loadRetrieval(generation: number, tenant: string): Promise<RetrievalSettings>;
  /** The tenant's BM25 statistics for these terms. */
  statistics(generation: number, tenant: string, terms: readonly string[]): Promise<TenantStatistics>;
  /** Writes documents and synonym tables and moves the checkpoint, atomically (compare-and-set). */
  commit(
    generation: number,
    writer: ProjectionWriter,
    expected: number,
    next: number,
    writes: readonly LexicalWrite[],
  ): Promise<ApplyOutcome>;
  /**
   * Whether a generation holds the terms of today's text analysis (`false` for one built by an
   * older version: it answers, less well, until a rebuild replaces it).
   */
  hasCurrentAnalysis(generation: number): Promise<boolean>;
  /**
   * Runs a text clause (`(a|b)`, analysed terms) with filters on a generation's index: up to
   * `limit` matches in RediSearch's BM25 order, each with its terms (no documents: the caller
   * scores them exactly and loads the documents of the best).
   */
  match(generation: number, text: string, filters: readonly string[], limit: number): Promise<LexicalMatch[]>;
  /**
   * For each memory at a place in an episode, the ids of the memories just before and just
   * after it there that pass the filters (one round trip for all).
   */
  episodeNeighbourIds(
    generation: number,
    memories: readonly { id: string; place: EpisodePlace }[],
    filters: readonly string[],
  ): Promise<Map<string, string[]>>;
  /**
   * For each document with an episode, the memories just before and just after it there that
   * pass the filters (one round trip for all).
   */
  episodeNeighbours(
    generation: number,
    documents: readonly MemoryDocument[],
    filters: readonly string[],
  ): Promise<Map<string, MemoryDocument[]>>;
  /** Documents only, for filters that need no scores (backlinks, slot lookups). */
  searchDocuments(generation: number, query: string, limit: number): Promise<MemoryDocument[]>;
  /** Documents matching `query`, most recently updated first. */
  listDocuments(generation: number, query: string, limit: number): Promise<MemoryDocument[]>;
  /** How many documents match `query`, read from the index alone. */
  countDocuments(generation: number, query: string): Promise<number>;
  indexName(generation: number): string;
  docKey(generation: number, id: string): string;
};

export type LexicalStoreOptions = { redis: Redis; module: RediSearchModule; prefix: string };

/**
 * KEYS: the active generation's pointer. ARGV: the generations' base key, the tenant, the two
 * expiry sets the principal sees and the tenant's statistics hash inside a generation, then the
 * fields of it to read. Answers the generation, the tenant's synonyms and retrieval settings in
 * it (nil when absent), the earliest expiry of each set (nil when empty), and those fields of
 * its statistics.
 */
const tenantViewScript = `
local g = redis.call('GET', KEYS[1])
if not g then return {false, false, false, false, false} end
local prefix = ARGV[1] .. 'g' .. g .. ':'
local function earliest(set)
  return redis.call('ZRANGE', prefix .. set, 0, 0, 'WITHSCORES')[2] or false
end
local out = {
  g,
  redis.call('HGET', prefix .. 'synonyms', ARGV[2]),
  redis.call('HGET', prefix .. 'retrieval', ARGV[2]),
  earliest(ARGV[3]),
  earliest(ARGV[4]),
}
if #ARGV > 5 then out[6] = redis.call('HMGET', prefix .. ARGV[5], unpack(ARGV, 6)) end
return out
`;

const tracer = getTracer("@cairn/search");

/** Runs a pipeline of reads as one span (`redis <what>`), not one span per command. */
function readInOneSpan(what: string, pipeline: ReturnType<Redis["pipeline"]>) {
  return startBatchSpan(tracer, `redis ${what}`, () => pipeline.exec(), {
    attributes: { "db.system": "redis", "cairn.redis.commands": pipeline.length },
  });
}

function parseSynonyms(json: string | null): string[][] {
  return json === null ? [] : (JSON.parse(json) as string[][]);
}

function parseRetrieval(json: string | null): RetrievalSettings {
  if (json === null) return defaultRetrievalSettings;
  const parsed = RetrievalSettingsSchema.safeParse(JSON.parse(json));
  return parsed.success ? parsed.data : defaultRetrievalSettings;
}

/** A document's term count as stored with it, or counted (a document written before it was stored). */
function termCountOf(terms: string, stored: string | undefined): number {
  const count = Number(stored);
  if (stored !== undefined && Number.isInteger(count)) return count;
  if (terms === "") return 0;
  let n = 1;
  for (let i = 0; i < terms.length; i += 1) if (terms.charCodeAt(i) === 32) n += 1;
  return n;
}

function parseDocument(json: unknown): MemoryDocument | null {
  if (typeof json !== "string") return null;
  return MemoryDocumentSchema.parse(JSON.parse(json));
}

type SearchHit = { key: string; score: number; payload: string | null; fields: Map<string, string> };

/** The hash fields a match reads when a document has no payload (see `matchPayload`). */
const matchFields = ["terms", "term_count", "episode", "episode_order"] as const;

/**
 * FT.SEARCH replies as a flat list: total, then per hit key, [score], [payload],
 * [field, value, ...] (no field list with NOCONTENT).
 */
function parseSearchReply(
  reply: unknown[],
  options: { withScores?: boolean; withPayloads?: boolean; noContent?: boolean } = {},
): SearchHit[] {
  const hits: SearchHit[] = [];
  const scoreAt = 1;
  const payloadAt = scoreAt + (options.withScores ? 1 : 0);
  const fieldsAt = payloadAt + (options.withPayloads ? 1 : 0);
  const step = fieldsAt + (options.noContent ? 0 : 1);
  for (let i = 1; i + step - 1 < reply.length; i += step) {
    const key = String(reply[i]);
    const score = options.withScores ? Number(reply[i + scoreAt]) : 0;
    const payload = options.withPayloads ? (reply[i + payloadAt] as string | null) : null;
    const list = options.noContent ? null : (reply[i + fieldsAt] as unknown[] | null);
    const fields = new Map<string, string>();
    for (let f = 0; list && f + 1 < list.length; f += 2)
      fields.set(String(list[f]), String(list[f + 1] ?? ""));
    hits.push({ key, score, payload: typeof payload === "string" ? payload : null, fields });
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
  const retrievalKey = (g: number) => `${gen(g)}retrieval`;
  const statsPath = (tenant: string) => `stats:${tenant}`;
  const statsKey = (g: number) => (tenant: string) => `${gen(g)}${statsPath(tenant)}`;
  const expiryPath = (set: string) => `expiring:${set}`;
  const expiryKey = (g: number, set: string) => `${gen(g)}${expiryPath(set)}`;
  const analysed = new Map<number, boolean>();

  async function createIndex(g: number): Promise<void> {
    const [command, ...args] = createIndexCommand(module, indexName(g), docPrefix(g), lexicalSchema);
    try {
      await redis.call(command as string, ...args);
    } catch (error) {
      if (!isIndexExistsError(error)) throw error;
    }
  }

  async function hasCurrentAnalysis(g: number): Promise<boolean> {
    const known = analysed.get(g);
    if (known !== undefined) return known;
    const current = (await generations.version(g)) === lexicalAnalysisVersion;
    analysed.set(g, current);
    return current;
  }

  async function indexExists(g: number): Promise<boolean> {
    try {
      // Parsing a query against the index answers as FT.INFO does, without FT.INFO's walk over
      // every term of the index (25 ms of Redis, every other request waiting, at 100,000).
      await redis.call("FT.EXPLAIN", indexName(g), "*");
      return true;
    } catch (error) {
      if (isUnknownIndexError(error)) return false;
      throw error;
    }
  }

  const generations = createRedisGenerations(redis, base, {
    version: lexicalAnalysisVersion,
    createData: createIndex,
    // After a Redis restart without its data the active generation has no index: make it again.
    ensureData: async (g) => {
      if (!(await indexExists(g))) await createIndex(g);
    },
    hasData: indexExists,
    dropData: async (g) => {
      analysed.delete(g);
      const [command, ...args] = dropIndexCommand(module, indexName(g));
      try {
        await redis.call(command as string, ...args);
      } catch (error) {
        if (!isUnknownIndexError(error)) throw error;
      }
    },
  });

  /**
   * The terms of documents this store read, as the index holds them (what they added to the
   * statistics), so a change takes back exactly that without analysing the old text again.
   * Kept as stored and split only when a change needs them (a query's documents never do).
   */
  const storedTerms = new WeakMap<MemoryDocument, string>();
  const storedTermsOf = (doc: MemoryDocument): readonly string[] | undefined => {
    const terms = storedTerms.get(doc);
    if (terms === undefined) return undefined;
    return terms === "" ? [] : terms.split(" ");
  };

  /** A document as Redis commands: FT.ADD on 1.x; on 2.x a fresh hash the index follows. */
  function documentCommands(g: number, doc: MemoryDocument, terms: readonly string[]): RedisCommand[] {
    const key = docKey(g, doc.id);
    const fields = documentFields(doc, terms);
    if (module.generation === 1)
      return [
        [
          "FT.ADD",
          indexName(g),
          key,
          "1.0",
          "REPLACE",
          "PAYLOAD",
          matchPayload(doc, terms),
          "FIELDS",
          ...fields,
        ],
      ];
    return [
      ["DEL", key],
      ["HSET", key, ...fields],
    ];
  }

  /**
   * A document's place in the expiry sets: out of the sets its previous version was kept in
   * and it is not, into its own while it has an expiry (a set never misses a memory that has
   * one; a stale member only makes queries ask "not expired" when they need not).
   */
  function expiryCommands(
    g: number,
    doc: MemoryDocument,
    previous: MemoryDocument | undefined,
  ): RedisCommand[] {
    const now = doc.invalidAt === null ? [] : expirySets(doc);
    const before = previous === undefined || previous.invalidAt === null ? [] : expirySets(previous);
    const commands: RedisCommand[] = before
      .filter((set) => !now.includes(set))
      .map((set) => ["ZREM", expiryKey(g, set), doc.id]);
    for (const set of now)
      commands.push(["ZADD", expiryKey(g, set), String(Date.parse(doc.invalidAt as string)), doc.id]);
    return commands;
  }

  /** A query as generation `g` reads it: an index of an older version by its own fields. */
  async function queryFor(g: number, query: string): Promise<string> {
    return (await hasCurrentAnalysis(g)) ? query : visibilityByFields(query);
  }

  async function findDocuments(g: number, query: string, limit: number, order: string[]) {
    const reply = (await redis.call(
      "FT.SEARCH",
      indexName(g),
      await queryFor(g, query),
      "RETURN",
      "1",
      "json",
      ...order,
      "LIMIT",
      "0",
      String(limit),
    )) as unknown[];
    return parseSearchReply(reply).flatMap((hit) => {
      const document = parseDocument(hit.fields.get("json"));
      return document ? [document] : [];
    });
  }

  /** The FT.SEARCH arguments of the memory just before or after a place in its episode. */
  function neighbourQuery(g: number, place: EpisodePlace, filters: readonly string[], after: boolean) {
    const episode = `@episode:{${identityTag(place.id)}}`;
    const range = after ? `[(${place.order} +inf]` : `[-inf (${place.order}]`;
    const query = [episode, `@episode_order:${range}`, ...filters].join(" ");
    return [indexName(g), query, "SORTBY", "episode_order", after ? "ASC" : "DESC"];
  }

  return {
    module,
    generations,
    indexName,
    docKey,
    activeGeneration: () => generations.active(),
    async tenantView(principal, terms = []) {
      const [g, synonyms, retrieval, ownExpiry, globalExpiry, statistics] = (await redis.eval(
        tenantViewScript,
        1,
        `${base}active`,
        base,
        principal.tenant,
        ...visibleExpirySets(principal).map(expiryPath),
        statsPath(principal.tenant),
        ...(terms.length > 0 ? statisticsFields(terms) : []),
      )) as [
        string | null,
        string | null,
        string | null,
        string | null,
        string | null,
        (string | null)[] | undefined,
      ];
      const generation = g === null || g === undefined ? null : Number(g);
      const expiries = [ownExpiry, globalExpiry].flatMap((e) => (e == null ? [] : [Number(e)]));
      const keepsExpiries = generation !== null && (await hasCurrentAnalysis(generation));
      return {
        generation,
        synonyms: parseSynonyms(synonyms ?? null),
        retrieval: parseRetrieval(retrieval ?? null),
        ...(generation !== null && statistics ? { statistics: parseStatistics(terms, statistics) } : {}),
        ...(keepsExpiries ? { earliestExpiry: expiries.length > 0 ? Math.min(...expiries) : null } : {}),
      };
    },
    checkpoint: (g) => generations.checkpoint(g),
    async loadDocuments(g, ids) {
      const out = new Map<string, MemoryDocument>();
      if (ids.length === 0) return out;
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hmget(docKey(g, id), "json", "terms");
      const results = (await readInOneSpan("documents", pipeline)) ?? [];
      results.forEach(([error, values], i) => {
        if (error) throw error;
        const [json, terms] = values as (string | null)[];
        const doc = parseDocument(json);
        if (!doc) return;
        out.set(ids[i] as string, doc);
        if (typeof terms === "string") storedTerms.set(doc, terms);
      });
      return out;
    },
    async loadDocument(g, id) {
      return parseDocument(await redis.hget(docKey(g, id), "json"));
    },
    async loadSynonyms(g, tenant) {
      return parseSynonyms(await redis.hget(synonymsKey(g), tenant));
    },
    async loadRetrieval(g, tenant) {
      return parseRetrieval(await redis.hget(retrievalKey(g), tenant));
    },
    statistics: (g, tenant, terms) => readStatistics(redis, statsKey(g)(tenant), terms),
    async commit(g, writer, expected, next, writes) {
      // Each document is analysed once: for its index entry and for the statistics.
      const analysed = new Map<MemoryDocument, readonly string[]>();
      const termsOf = (doc: MemoryDocument): readonly string[] => {
        let terms = analysed.get(doc);
        if (terms === undefined) {
          terms = storedTermsOf(doc) ?? documentTerms(doc);
          analysed.set(doc, terms);
        }
        return terms;
      };
      const commands = writes.flatMap((w): RedisCommand[] => {
        if (w.kind === "document")
          return [
            ...documentCommands(g, w.document, termsOf(w.document)),
            ...expiryCommands(g, w.document, w.previous),
          ];
        if (w.kind === "synonyms") return [["HSET", synonymsKey(g), w.tenant, JSON.stringify(w.groups)]];
        return [["HSET", retrievalKey(g), w.tenant, JSON.stringify(w.settings)]];
      });
      const changes = writes.flatMap((w) => (w.kind === "document" ? [w] : []));
      commands.push(...(await statisticsCommands(redis, statsKey(g), changes, termsOf)));
      return generations.commit(g, writer, expected, next, commands);
    },
    hasCurrentAnalysis,
    async match(g, text, filters, limit) {
      const current = await hasCurrentAnalysis(g);
      // On 1.x the index keeps what a match needs as each document's payload: no hash is read.
      // An index of an older analysis has no `terms` field: its text fields take the clause,
      // and its documents are analysed here.
      const payloads = current && module.generation === 1;
      const reply = (await redis.call(
        "FT.SEARCH",
        indexName(g),
        current ? [`@terms:${text}`, ...filters].join(" ") : visibilityByFields([text, ...filters].join(" ")),
        "VERBATIM",
        "WITHSCORES",
        "SCORER",
        bm25Scorer(module),
        ...(payloads
          ? ["NOCONTENT", "WITHPAYLOADS"]
          : ["RETURN", "4", current ? "terms" : "json", "term_count", "episode", "episode_order"]),
        "LIMIT",
        "0",
        String(limit),
      )) as unknown[];
      const prefix = docPrefix(g);
      const hits = parseSearchReply(reply, { withScores: true, withPayloads: payloads, noContent: payloads });
      const paid = hits.map((hit) => (payloads ? parseMatchPayload(hit.payload) : null));
      // A document written without a payload (by a copy of search from before it) is read by its fields.
      const unpaid = payloads ? hits.filter((_, i) => paid[i] === null) : [];
      if (unpaid.length > 0) {
        const pipeline = redis.pipeline();
        for (const hit of unpaid) pipeline.hmget(hit.key, ...matchFields);
        const replies = (await readInOneSpan("match fields", pipeline)) ?? [];
        unpaid.forEach((hit, i) => {
          const [error, values] = replies[i] ?? [null, null];
          if (error) throw error;
          const list = (values as (string | null)[] | null) ?? [];
          matchFields.forEach((field, f) => {
            const value = list[f];
            if (value != null) hit.fields.set(field, value);
          });
        });
      }
      return hits.map((hit, i) => {
        const id = hit.key.slice(prefix.length);
        const payload = paid[i];
        if (payload) return { id, score: hit.score, ...payload };
        const stale = current ? null : parseDocument(hit.fields.get("json"));
        const staleTerms = stale ? memoryTerms(stale) : null;
        const terms = staleTerms ? staleTerms.join(" ") : (hit.fields.get("terms") ?? "");
        return {
          id,
          score: hit.score,
          terms,
          termCount: staleTerms?.length ?? termCountOf(terms, hit.fields.get("term_count")),
          place: placeOfFields(hit.fields),
        };
      });
    },
    async episodeNeighbourIds(g, memories, asked) {
      const out = new Map<string, string[]>();
      if (memories.length === 0) return out;
      const filters = [await queryFor(g, asked.join(" "))];
      const pipeline = redis.pipeline();
      for (const { place } of memories) {
        for (const after of [false, true]) {
          pipeline.call(
            "FT.SEARCH",
            ...neighbourQuery(g, place, filters, after),
            "NOCONTENT",
            "LIMIT",
            "0",
            "1",
          );
        }
      }
      const replies = (await readInOneSpan("episode neighbours", pipeline)) ?? [];
      const prefix = docPrefix(g);
      memories.forEach(({ id }, i) => {
        const found: string[] = [];
        for (const [error, reply] of [replies[2 * i], replies[2 * i + 1]].filter((r) => r !== undefined)) {
          if (error) throw error;
          for (const hit of parseSearchReply(reply as unknown[], { noContent: true })) {
            const neighbour = hit.key.slice(prefix.length);
            if (neighbour !== id) found.push(neighbour);
          }
        }
        out.set(id, found);
      });
      return out;
    },
    async episodeNeighbours(g, documents, clauses) {
      const out = new Map<string, MemoryDocument[]>();
      const asked = documents.flatMap((d) => {
        const place = episodePlace(d);
        return place ? [{ document: d, place }] : [];
      });
      if (asked.length === 0) return out;
      const filters = [await queryFor(g, clauses.join(" "))];
      const pipeline = redis.pipeline();
      for (const { place } of asked) {
        for (const after of [false, true]) {
          pipeline.call(
            "FT.SEARCH",
            ...neighbourQuery(g, place, filters, after),
            "RETURN",
            "1",
            "json",
            "LIMIT",
            "0",
            "1",
          );
        }
      }
      const replies = (await readInOneSpan("episode neighbours", pipeline)) ?? [];
      asked.forEach(({ document: doc }, i) => {
        const found: MemoryDocument[] = [];
        for (const [error, reply] of [replies[2 * i], replies[2 * i + 1]].filter((r) => r !== undefined)) {
          if (error) throw error;
          for (const hit of parseSearchReply(reply as unknown[])) {
            const neighbour = parseDocument(hit.fields.get("json"));
            if (neighbour && neighbour.id !== doc.id) found.push(neighbour);
          }
        }
        out.set(doc.id, found);
      });
      return out;
    },
    searchDocuments: (g, query, limit) => findDocuments(g, query, limit, []),
    listDocuments: (g, query, limit) => findDocuments(g, query, limit, ["SORTBY", "updated", "DESC"]),
    async countDocuments(g, query) {
      // The reply's first element is the total; one key is the least every version accepts.
      const reply = (await redis.call(
        "FT.SEARCH",
        indexName(g),
        await queryFor(g, query),
        "NOCONTENT",
        "LIMIT",
        "0",
        "1",
      )) as unknown[];
      return Number(reply[0] ?? 0);
    },
  };
}
