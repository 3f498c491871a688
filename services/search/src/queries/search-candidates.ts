// `cairn.search.candidates`: lexical (BM25), vector (KNN) or hybrid (Reciprocal Rank Fusion)
// candidates, filtered by what the principal may see, each with its per-retriever rank and
// score so ranking can explain them.
//
// Each stage is a child span of the request (`search wait`, `search lexical`, `search vector`,
// `search fusion`) with its candidate counts as attributes, and is timed in
// `cairn_search_stage_duration_seconds{stage}`.
import {
  type CairnError,
  type CandidatesReply,
  listAllQuery,
  type ParsedCandidatesRequest,
  type RetrieverName,
} from "@cairn/contracts";
import { waitForPosition } from "@cairn/projection-runtime";
import { type Attributes, getTracer, recallStageHistogram, type Span, startSpan } from "@cairn/telemetry";
import { lexicalText } from "./lexical-query.ts";
import { positionSource, type ReadModels } from "./read-models.ts";
import { fuseByReciprocalRank, type RankedHit } from "./reciprocal-rank-fusion.ts";
import { lexicalFilterClauses, vectorFilter } from "./search-filters.ts";
import { onActiveGeneration, readModelError } from "./store-errors.ts";

type LexicalOutcome = { hits: RankedHit[]; synonymsApplied: string[] };

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

/** Reciprocal Rank Fusion as the `fusion` stage, with its input and output counts. */
function fuse(lexical: RankedHit[] | null, vector: RankedHit[] | null, k: number) {
  return stage(
    "fusion",
    (span) => {
      const fused = fuseByReciprocalRank(lexical, vector, k);
      span.setAttribute("cairn.candidates.count", fused.length);
      return fused;
    },
    {
      "cairn.candidates.lexical": lexical?.length ?? 0,
      "cairn.candidates.vector": vector?.length ?? 0,
      "cairn.k": k,
    },
  );
}

async function lexicalOnce(
  models: ReadModels,
  request: ParsedCandidatesRequest,
  limit: number,
): Promise<LexicalOutcome> {
  const g = await models.lexical.activeGeneration();
  if (g === null) return { hits: [], synonymsApplied: [] };
  if (isListing(request)) {
    // A listing: the filters alone, newest first (no text to score).
    const filters = lexicalFilterClauses(request.principal, request.filters, models.now());
    if (filters === null) return { hits: [], synonymsApplied: [] };
    const documents = await models.lexical.listDocuments(g, filters.join(" "), limit);
    return {
      hits: documents.map((document) => ({ id: document.id, score: 0, document })),
      synonymsApplied: [],
    };
  }
  const synonyms = await models.lexical.loadSynonyms(g, request.principal.tenant);
  const text = lexicalText(request.query, request.expansions, synonyms);
  const filters = lexicalFilterClauses(request.principal, request.filters, models.now());
  if (text.clause === null || filters === null) return { hits: [], synonymsApplied: text.synonymsApplied };
  const hits = await models.lexical.search(g, [text.clause, ...filters].join(" "), limit);
  return { hits, synonymsApplied: text.synonymsApplied };
}

async function lexicalCandidates(
  models: ReadModels,
  request: ParsedCandidatesRequest,
  limit: number,
): Promise<LexicalOutcome> {
  return stage(
    "lexical",
    async (span) => {
      try {
        const outcome = await onActiveGeneration(() => lexicalOnce(models, request, limit));
        span.setAttribute("cairn.candidates.count", outcome.hits.length);
        return outcome;
      } catch (error) {
        throw readModelError("lexical", error);
      }
    },
    { "cairn.limit": limit },
  );
}

async function vectorOnce(models: ReadModels, request: ParsedCandidatesRequest, limit: number) {
  const generation = await models.vector.servingGeneration();
  const started = performance.now();
  const [vector] = await models.queryEmbedder.embed([request.query]);
  stageDuration.record((performance.now() - started) / 1000, { stage: "embed" });
  const hits = await models.vectorRows.search(
    generation,
    vector as number[],
    vectorFilter(request.principal, request.filters, models.now()),
    limit,
  );
  return { hits, model: generation.model };
}

async function vectorCandidates(models: ReadModels, request: ParsedCandidatesRequest, limit: number) {
  return stage(
    "vector",
    async (span) => {
      try {
        const outcome = await onActiveGeneration(() => vectorOnce(models, request, limit));
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

function isListing(request: ParsedCandidatesRequest): boolean {
  return request.query.trim() === listAllQuery;
}

export async function searchCandidates(
  models: ReadModels,
  asked: ParsedCandidatesRequest,
): Promise<CandidatesReply> {
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
      name,
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
  if (request.mode === "lexical") {
    const lexical = await lexicalCandidates(models, request, k);
    return {
      candidates: await fuse(lexical.hits, null, k),
      position: positions.lexical ?? 0,
      positions,
      embeddingModel: null,
      synonymsApplied: lexical.synonymsApplied,
      unavailable: [],
    };
  }
  if (request.mode === "vector") {
    const vector = await vectorCandidates(models, request, k);
    return {
      candidates: await fuse(null, vector.hits, k),
      position: positions.vector ?? 0,
      positions,
      embeddingModel: vector.model,
      synonymsApplied: [],
      unavailable: [],
    };
  }
  // Hybrid: deeper lists make the fusion better.
  const depth = Math.min(500, k * 2);
  const skipped = (name: RetrieverName) => Promise.reject(down.get(name));
  const [lexical, vector] = await Promise.allSettled([
    down.has("lexical") ? skipped("lexical") : lexicalCandidates(models, request, depth),
    down.has("vector") ? skipped("vector") : vectorCandidates(models, request, depth),
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
    candidates: await fuse(
      lexical.status === "fulfilled" ? lexical.value.hits : null,
      vector.status === "fulfilled" ? vector.value.hits : null,
      k,
    ),
    position: Math.min(...used.map((n) => positions[n] ?? 0)),
    positions,
    embeddingModel: vector.status === "fulfilled" ? vector.value.model : null,
    synonymsApplied: lexical.status === "fulfilled" ? lexical.value.synonymsApplied : [],
    unavailable,
  };
}
