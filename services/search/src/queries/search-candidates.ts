// `cairn.search.candidates`: lexical (BM25), vector (KNN) or hybrid (Reciprocal Rank Fusion)
// candidates, filtered by what the principal may see, each with its per-retriever rank and
// score so ranking can explain them.
import type { CairnError, CandidatesReply, ParsedCandidatesRequest, ProjectionName } from "@cairn/contracts";
import { lexicalText } from "./lexical-query.ts";
import { positionSource, type ReadModels } from "./read-models.ts";
import { fuseByReciprocalRank, type RankedHit } from "./reciprocal-rank-fusion.ts";
import { lexicalFilterClauses, vectorFilter } from "./search-filters.ts";
import { onActiveGeneration, readModelError } from "./store-errors.ts";
import { waitForPosition } from "./wait-for-position.ts";

type LexicalOutcome = { hits: RankedHit[]; synonymsApplied: string[] };

async function lexicalOnce(
  models: ReadModels,
  request: ParsedCandidatesRequest,
  limit: number,
): Promise<LexicalOutcome> {
  const g = await models.lexical.activeGeneration();
  if (g === null) return { hits: [], synonymsApplied: [] };
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
  try {
    return await onActiveGeneration(() => lexicalOnce(models, request, limit));
  } catch (error) {
    throw readModelError("lexical", error);
  }
}

async function vectorOnce(models: ReadModels, request: ParsedCandidatesRequest, limit: number) {
  const generation = await models.vector.servingGeneration();
  const [vector] = await models.queryEmbedder.embed([request.query]);
  const hits = await models.vectorStore.search(
    generation,
    vector as number[],
    vectorFilter(request.principal, request.filters, models.now()),
    limit,
  );
  return { hits, model: generation.model };
}

async function vectorCandidates(models: ReadModels, request: ParsedCandidatesRequest, limit: number) {
  try {
    return await onActiveGeneration(() => vectorOnce(models, request, limit));
  } catch (error) {
    throw readModelError("vector", error);
  }
}

export async function searchCandidates(
  models: ReadModels,
  request: ParsedCandidatesRequest,
): Promise<CandidatesReply> {
  const needs: ProjectionName[] = request.mode === "hybrid" ? ["lexical", "vector"] : [request.mode];
  // Hybrid answers from one retriever when the other's read model is down: its checkpoint
  // failing to read marks it unavailable instead of failing the request.
  const down = new Map<ProjectionName, CairnError>();
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
  const waited = await waitForPosition(
    sources,
    request.afterPosition,
    request.waitTimeoutMs ?? models.defaultWaitMs,
  );
  const positions = Object.fromEntries(
    Object.entries(waited).filter(([n]) => !down.has(n as ProjectionName)),
  );
  const k = request.candidateK;
  if (request.mode === "lexical") {
    const lexical = await lexicalCandidates(models, request, k);
    return {
      candidates: fuseByReciprocalRank(lexical.hits, null, k),
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
      candidates: fuseByReciprocalRank(null, vector.hits, k),
      position: positions.vector ?? 0,
      positions,
      embeddingModel: vector.model,
      synonymsApplied: [],
      unavailable: [],
    };
  }
  // Hybrid: deeper lists make the fusion better.
  const depth = Math.min(500, k * 2);
  const skipped = (name: ProjectionName) => Promise.reject(down.get(name));
  const [lexical, vector] = await Promise.allSettled([
    down.has("lexical") ? skipped("lexical") : lexicalCandidates(models, request, depth),
    down.has("vector") ? skipped("vector") : vectorCandidates(models, request, depth),
  ]);
  if (lexical.status === "rejected" && vector.status === "rejected") throw lexical.reason as CairnError;
  const unavailable: ProjectionName[] = [];
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
    candidates: fuseByReciprocalRank(
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
