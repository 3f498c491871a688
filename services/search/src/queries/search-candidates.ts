// `cairn.search.candidate_ids` and `cairn.search.candidates`: lexical (BM25), vector (KNN) or
// hybrid (score fusion) candidates, filtered by what the principal may see, each with its
// per-retriever rank and score so ranking can explain them. The ranking works on ids, scores
// and episode places alone; `candidates` then reads the documents of the k it answers, from
// the lexical read model, and `candidate_ids` answers without them.
//
// The lexical stage asks RediSearch for a pool of matches and scores them with exact BM25 on
// the analysed terms and the tenant's statistics (RediSearch's own BM25 before Redis 8.4 does
// not normalise by document length, and is not per tenant), best first.
//
// Each stage is a child span of the request (`search wait`, `search lexical`, `search vector`,
// `search fusion`) with its candidate counts as attributes, and is timed in
// `cairn_search_stage_duration_seconds{stage}`.
import {
  type CairnError,
  type Candidate,
  type CandidateIdsReply,
  type CandidatesReply,
  defaultRetrievalSettings,
  listAllQuery,
  type MemoryDocument,
  type ParsedCandidatesRequest,
  type Principal,
  type RetrievalSettings,
  type RetrieverName,
} from "@cairn/contracts";
import { splitAtFloor } from "@cairn/memory-model";
import { waitForPosition } from "@cairn/projection-runtime";
import { type Attributes, getTracer, recallStageHistogram, type Span, startSpan } from "@cairn/telemetry";
import { prepareBm25 } from "@cairn/text-analysis";
import type { EpisodePlace } from "../projections/lexical/lexical-index.ts";
import type { TenantView } from "../projections/lexical/lexical-store.ts";
import { fuseRelevance, type RankedHit } from "./fuse-relevance.ts";
import { type LexicalText, lexicalText, rarerClause } from "./lexical-query.ts";
import { loadDocuments } from "./load-documents.ts";
import { positionSource, type ReadModels } from "./read-models.ts";
import { lexicalFilterClauses, vectorFilter } from "./search-filters.ts";
import { type SpreadOptions, spreadEpisodes } from "./spread-episodes.ts";
import { onActiveGeneration, readModelError } from "./store-errors.ts";

/** A retriever's hit: id, score, and the memory's place in its episode (for spreading). */
type Hit = RankedHit & { place: EpisodePlace | null };

type LexicalOutcome = {
  hits: Hit[];
  synonymsApplied: string[];
  /** BM25 of a memory the lexical stage did not return (hybrid: what only vectors found). */
  scoreOf: (id: string) => number;
  /** How much of the query a memory holds (undefined: no text was scored). */
  coverageOf: (id: string) => number | undefined;
  /** A listing's documents, read with it (no text to score). */
  documents?: Map<string, MemoryDocument>;
};

const noScore = () => 0;
const noCoverage = () => undefined;

const tracer = getTracer("@cairn/search");
const stageDuration = recallStageHistogram();

type Stage = "wait" | "lexical" | "embed" | "vector" | "fusion";

/** Runs a stage in its span and records its duration (failed stages too). */
async function stage<T>(
  name: Stage,
  fn: (span: Span) => Promise<T> | T,
  attributes: Attributes = {},
): Promise<T> {
  const started = performance.now();
  try {
    return await startSpan(tracer, `search ${name}`, fn, {
      attributes: { "cairn.stage": name, ...attributes },
    });
  } finally {
    stageDuration.record((performance.now() - started) / 1000, { stage: name });
  }
}

type Relevance = {
  vectorWeight: number;
  floor: number;
  closeSimilarity: number;
  /** Candidates below the floor: left out, or marked for the caller's re-ranking to judge. */
  belowFloor: "drop" | "mark";
};

/**
 * Score fusion as the `fusion` stage, with its input and output counts: the fused relevance,
 * each candidate's share of the query, and the relevance floor.
 */
function fuse(
  lexical: LexicalOutcome | null,
  vector: Hit[] | null,
  k: number,
  relevance: Relevance,
  episodes?: SpreadOptions,
) {
  return stage(
    "fusion",
    async (span) => {
      const fused = fuseRelevance(lexical?.hits ?? null, vector, Number.MAX_SAFE_INTEGER, {
        vectorWeight: relevance.vectorWeight,
        lexicalScoreOf: lexical?.scoreOf ?? noScore,
      });
      for (const c of fused) {
        const coverage = lexical?.coverageOf(c.id);
        if (coverage !== undefined) c.coverage = coverage;
      }
      const places = new Map<string, EpisodePlace | null>();
      for (const hit of [...(vector ?? []), ...(lexical?.hits ?? [])]) places.set(hit.id, hit.place);
      const { above, below } = splitAtFloor(fused, relevance);
      const marked = new Set(relevance.belowFloor === "mark" ? below.map((c) => c.id) : []);
      const listed = marked.size === 0 ? above : fused;
      // Only a memory above the floor gives its neighbours a share; a marked one that receives
      // a share is above the floor as their neighbour.
      const placeOf = (id: string) => (marked.has(id) ? null : (places.get(id) ?? null));
      const spread = episodes ? await spreadEpisodes(listed, placeOf, episodes) : listed;
      const candidates = spread
        .slice(0, k)
        .map((c) => (marked.has(c.id) && c.episode === undefined ? { ...c, belowFloor: true as const } : c));
      span.setAttribute("cairn.candidates.count", candidates.length);
      span.setAttribute("cairn.candidates.below_floor", below.length);
      return {
        candidates,
        belowFloor: below.length,
        vectorWeight: relevance.vectorWeight,
        ...(lexical?.documents ? { documents: lexical.documents } : {}),
      };
    },
    {
      "cairn.candidates.lexical": lexical?.hits.length ?? 0,
      "cairn.candidates.vector": vector?.length ?? 0,
      "cairn.k": k,
    },
  );
}

/**
 * The tenant's view of the lexical read model (serving generation, synonyms, retrieval
 * settings, and the statistics of the query's terms and expansions), read once per request and
 * again only when a rebuild dropped the generation read.
 */
type TenantViews = {
  current(): Promise<TenantView>;
  refresh(): Promise<TenantView>;
  /** The query's lexical text without synonyms, analysed once (null: no text is scored). */
  plain: LexicalText | null;
};

function tenantViews(models: ReadModels, principal: Principal, plain: LexicalText | null): TenantViews {
  const terms = plain?.weighted.map((w) => w.term) ?? [];
  const read = () => {
    const view = models.lexical.tenantView(principal, terms);
    // Read now, awaited by whichever stage needs it first; a failure is that stage's.
    view.catch(() => undefined);
    return view;
  };
  let latest = read();
  return {
    plain,
    current: () => latest,
    refresh: () => {
      latest = read();
      return latest;
    },
  };
}

async function lexicalOnce(
  models: ReadModels,
  request: ParsedCandidatesRequest,
  limit: number,
  view: TenantView,
  plain: LexicalText | null,
): Promise<LexicalOutcome> {
  const none = (synonymsApplied: string[] = []): LexicalOutcome => ({
    hits: [],
    synonymsApplied,
    scoreOf: noScore,
    coverageOf: noCoverage,
  });
  const g = view.generation;
  if (g === null) return none();
  if (isListing(request)) {
    // A listing: the filters alone, newest first (no text to score).
    const filters = lexicalFilterClauses(
      request.principal,
      request.filters,
      models.now(),
      view.earliestExpiry,
    );
    if (filters === null) return none();
    const documents = await models.lexical.listDocuments(g, filters.join(" "), limit);
    return {
      hits: documents.map((document) => ({ id: document.id, score: 0, place: null })),
      synonymsApplied: [],
      scoreOf: noScore,
      coverageOf: noCoverage,
      documents: new Map(documents.map((d) => [d.id, d])),
    };
  }
  const tenant = request.principal.tenant;
  // Without synonyms the text is the one analysed for the view's statistics.
  const text =
    plain !== null && view.synonyms.length === 0
      ? plain
      : lexicalText(request.query, request.expansions, view.synonyms);
  const filters = lexicalFilterClauses(request.principal, request.filters, models.now(), view.earliestExpiry);
  if (text.clause === null || filters === null) return none(text.synonymsApplied);
  // The statistics first: they say which terms are too common to match on. The view holds
  // those of the query's own terms; a synonym's are read now.
  const terms = text.weighted.map((w) => w.term);
  const known = view.statistics;
  const stats =
    known && terms.every((t) => known.documentFrequency.has(t))
      ? known
      : await models.lexical.statistics(g, tenant, terms);
  const depth = Math.max(limit, models.lexicalPool);
  const rarer = rarerClause(text, stats, models.commonTermShare);
  let pool = await models.lexical.match(g, rarer ?? text.clause, filters, depth);
  // The rarer terms alone do not fill the list: the memories with a common term count too.
  if (rarer !== null && pool.length < limit)
    pool = await models.lexical.match(g, text.clause, filters, depth);
  // A memory outside the pool holds none of the query's terms, or too little to be among the
  // pool's matches: its lexical score and coverage count as none (no analysis per query).
  const pooled = new Map(pool.map((hit) => [hit.id, hit]));
  const bm25 = prepareBm25(text.weighted, stats);
  const scores = new Map<string, number>();
  const scoreOf = (id: string) => {
    const hit = pooled.get(id);
    if (!hit) return 0;
    let score = scores.get(id);
    if (score === undefined) {
      score = bm25.scoreText(hit.terms, hit.termCount);
      scores.set(id, score);
    }
    return score;
  };
  const coverageOf = (id: string) => {
    const hit = pooled.get(id);
    return hit ? bm25.coverageText(hit.terms) : 0;
  };
  const hits = pool
    .map((hit, order) => ({ id: hit.id, score: scoreOf(hit.id), place: hit.place, order }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ id, score, place }) => ({ id, score, place }));
  return { hits, synonymsApplied: text.synonymsApplied, scoreOf, coverageOf };
}

async function lexicalCandidates(
  models: ReadModels,
  request: ParsedCandidatesRequest,
  limit: number,
  views: TenantViews,
): Promise<LexicalOutcome> {
  return stage(
    "lexical",
    async (span) => {
      try {
        const outcome = await onActiveGeneration(async (attempt) =>
          lexicalOnce(
            models,
            request,
            limit,
            await (attempt === 0 ? views.current() : views.refresh()),
            views.plain,
          ),
        );
        span.setAttribute("cairn.candidates.count", outcome.hits.length);
        return outcome;
      } catch (error) {
        throw readModelError("lexical", error);
      }
    },
    { "cairn.limit": limit },
  );
}

/**
 * How long a query that asks for no position may use the vector generation it read before (a
 * switched-away generation is dropped only after the rebuild's drop delay, 2 s by default).
 */
const servingGenerationMaxAgeMs = 500;

async function vectorOnce(
  models: ReadModels,
  request: ParsedCandidatesRequest,
  limit: number,
  attempt: number,
) {
  const fresh = attempt > 0 || request.afterPosition !== undefined;
  const started = performance.now();
  const [generation, [vector]] = await Promise.all([
    models.vector.servingGeneration({ maxAgeMs: fresh ? 0 : servingGenerationMaxAgeMs }),
    models.queryEmbedder.embed([request.query]).finally(() => {
      stageDuration.record((performance.now() - started) / 1000, { stage: "embed" });
    }),
  ]);
  const hits = await models.vectorRows.search(
    generation,
    vector as number[],
    vectorFilter(request.principal, request.filters, models.now(), generation.layout === "audience"),
    limit,
  );
  return { hits, model: generation.model };
}

async function vectorCandidates(models: ReadModels, request: ParsedCandidatesRequest, limit: number) {
  return stage(
    "vector",
    async (span) => {
      try {
        const outcome = await onActiveGeneration((attempt) => vectorOnce(models, request, limit, attempt));
        span.setAttribute("cairn.candidates.count", outcome.hits.length);
        span.setAttribute("cairn.embedding.model", outcome.model);
        return outcome;
      } catch (error) {
        throw readModelError("vector", error);
      }
    },
    { "cairn.limit": limit },
  );
}

/** How the best candidates pass relevance to their episode neighbours (none for a listing). */
async function episodeSpread(
  models: ReadModels,
  request: ParsedCandidatesRequest,
  retrieval: RetrievalSettings,
  views: TenantViews,
): Promise<SpreadOptions | undefined> {
  if (!request.episodes || retrieval.episodeSpread <= 0 || isListing(request)) return undefined;
  const filtersFor = (earliestExpiry?: number | null) =>
    lexicalFilterClauses(request.principal, request.filters, models.now(), earliestExpiry);
  if (filtersFor() === null) return undefined;
  return {
    spread: retrieval.episodeSpread,
    sources: Math.min(request.candidateK, maxEpisodeSources),
    neighbours: async (memories) => {
      const view = await views.current();
      const filters = filtersFor(view.earliestExpiry);
      return view.generation === null || filters === null
        ? new Map()
        : models.lexical.episodeNeighbourIds(view.generation, memories, filters);
    },
  };
}

/** The best candidates that pass relevance on: enough for a context, few enough for one round trip. */
const maxEpisodeSources = 30;

/** The tenant's retrieval settings, kept by the lexical read model (defaults when it is away). */
async function retrievalOf(views: TenantViews): Promise<RetrievalSettings> {
  try {
    return (await views.current()).retrieval;
  } catch {
    return defaultRetrievalSettings;
  }
}

function isListing(request: ParsedCandidatesRequest): boolean {
  return request.query.trim() === listAllQuery;
}

/** The candidates as ids and scores (and a listing's documents, read with it). */
type Ranked = CandidateIdsReply & { documents?: Map<string, MemoryDocument> };

/** `cairn.search.candidate_ids`: the candidates without their documents. */
export async function candidateIds(
  models: ReadModels,
  request: ParsedCandidatesRequest,
): Promise<CandidateIdsReply> {
  const { documents: _listed, ...reply } = await rankCandidates(models, request);
  return reply;
}

/**
 * `cairn.search.candidates`: the candidates with their documents, read for the k answered (a
 * memory deleted in between is left out).
 */
export async function searchCandidates(
  models: ReadModels,
  request: ParsedCandidatesRequest,
): Promise<CandidatesReply> {
  const { documents: listed, ...reply } = await rankCandidates(models, request);
  const documents =
    listed ??
    (await loadDocuments(
      models,
      reply.candidates.map((c) => c.id),
      reply.unavailable,
    ));
  const candidates = reply.candidates.flatMap((c): Candidate[] => {
    const document = documents.get(c.id);
    return document ? [{ ...c, document }] : [];
  });
  return { ...reply, candidates };
}

export async function rankCandidates(models: ReadModels, asked: ParsedCandidatesRequest): Promise<Ranked> {
  // A listing comes from the lexical read model whatever the mode: vectors cannot list.
  const request: ParsedCandidatesRequest = isListing(asked) ? { ...asked, mode: "lexical" } : asked;
  const needs: RetrieverName[] = request.mode === "hybrid" ? ["lexical", "vector"] : [request.mode];
  // Hybrid answers from one retriever when the other's read model is down: its checkpoint
  // failing to read marks it unavailable instead of failing the request.
  const down = new Map<RetrieverName, CairnError>();
  const sources = needs.map((name) => {
    const source = positionSource(models, name);
    if (request.mode !== "hybrid") return source;
    return {
      ...source,
      async position() {
        try {
          return await source.position();
        } catch (error) {
          down.set(name, error as CairnError);
          return Number.MAX_SAFE_INTEGER;
        }
      },
    };
  });
  const waited = await stage(
    "wait",
    () => waitForPosition(sources, request.afterPosition, request.waitTimeoutMs ?? models.defaultWaitMs),
    { "cairn.after_position": request.afterPosition ?? 0 },
  );
  const positions = Object.fromEntries(Object.entries(waited).filter(([n]) => !down.has(n as RetrieverName)));
  const k = request.candidateK;
  // The vector retriever needs nothing of the tenant's view: it starts now, while the view is
  // read (its failure is answered where it is awaited).
  const vectorRun =
    request.mode === "lexical" || down.has("vector") ? null : vectorCandidates(models, request, k);
  vectorRun?.catch(() => undefined);
  // The statistics of the query's terms and expansions are read with the view (a listing, or a
  // search without the lexical retriever, scores no text).
  const plain =
    needs.includes("lexical") && !isListing(request)
      ? lexicalText(request.query, request.expansions, [])
      : null;
  const views = tenantViews(models, request.principal, plain);
  const retrieval = await retrievalOf(views);
  const relevance = (vectorWeight: number): Relevance => ({
    vectorWeight,
    floor: retrieval.relevanceFloor,
    closeSimilarity: models.queryEmbedder.closeSimilarity,
    belowFloor: request.belowFloor,
  });
  const episodes = await episodeSpread(models, request, retrieval, views);
  if (request.mode === "lexical") {
    const lexical = await lexicalCandidates(models, request, k, views);
    return {
      ...(await fuse(lexical, null, k, relevance(0), episodes)),
      position: positions.lexical ?? 0,
      positions,
      embeddingModel: null,
      synonymsApplied: lexical.synonymsApplied,
      unavailable: [],
    };
  }
  if (request.mode === "vector") {
    const vector = await (vectorRun as NonNullable<typeof vectorRun>);
    return {
      ...(await fuse(null, vector.hits, k, relevance(1))),
      position: positions.vector ?? 0,
      positions,
      embeddingModel: vector.model,
      synonymsApplied: [],
      unavailable: [],
    };
  }
  // Hybrid: the lexical list goes twice as deep, which costs nothing (its pool is scored
  // anyway) and lets a memory far down it rise with its vector score. The vector list stops
  // at k: past the HNSW walk's `ef_search` (100) each further hit costs another pass of the
  // walk, for memories whose fused score rests almost wholly on the lexical part (recall@10
  // on LoCoMo within ±0.01 either way, with half the walk).
  const skipped = (name: RetrieverName) => Promise.reject(down.get(name));
  const [lexical, vector] = await Promise.allSettled([
    down.has("lexical")
      ? skipped("lexical")
      : lexicalCandidates(models, request, Math.min(500, k * 2), views),
    vectorRun ?? skipped("vector"),
  ]);
  if (lexical.status === "rejected" && vector.status === "rejected") throw lexical.reason as CairnError;
  const unavailable: RetrieverName[] = [];
  for (const [name, result] of [
    ["lexical", lexical],
    ["vector", vector],
  ] as const) {
    if (result.status === "rejected") {
      const error = result.reason as CairnError;
      if (error.code === "internal") throw error;
      models.logger.warn({ err: error.message, retriever: name }, "hybrid search without a retriever");
      unavailable.push(name);
    }
  }
  const used = needs.filter((n) => !unavailable.includes(n));
  return {
    ...(await fuse(
      lexical.status === "fulfilled" ? lexical.value : null,
      vector.status === "fulfilled" ? vector.value.hits : null,
      k,
      relevance(retrieval.vectorWeight ?? models.queryEmbedder.fusionWeight),
      lexical.status === "fulfilled" ? episodes : undefined,
    )),
    position: Math.min(...used.map((n) => positions[n] ?? 0)),
    positions: Object.fromEntries(used.map((n) => [n, positions[n] ?? 0])),
    embeddingModel: vector.status === "fulfilled" ? vector.value.model : null,
    synonymsApplied: lexical.status === "fulfilled" ? lexical.value.synonymsApplied : [],
    unavailable,
  };
}
