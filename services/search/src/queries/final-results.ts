// `cairn.search.results`: what a search or a context shows, in one request. The candidates are
// found here, sent to ranking as scores (`cairn.ranking.rerank`, which reads what its factors
// need from its own read model), and only the top `limit`'s documents are read and answered.
// The candidate list goes from search to ranking and no further; no document travels twice.
//
// Without a ranking service (no responder, or one that reports its read models unreachable)
// the results keep search's order, and what search marked below the relevance floor stays out:
// without ranking's understanding of the question it cannot be judged.
import {
  CairnError,
  type CandidateScores,
  type CandidatesReply,
  type FinalResult,
  type RerankReply,
  type RerankRequest,
  type ResultsReply,
  type ResultsRequestSchema,
} from "@cairn/contracts";
import { passesFloor } from "@cairn/memory-model";
import type { z } from "zod";
import { asOfCandidates, isAsOfRequest } from "./as-of.ts";
import type { LogSources } from "./fold-from-log.ts";
import { visibleDocuments } from "./read-documents.ts";
import type { ReadModels } from "./read-models.ts";
import { rankCandidates } from "./search-candidates.ts";

/** Ranking's re-rank as search asks for it. */
export type Rerank = (request: RerankRequest) => Promise<RerankReply>;

type Ranked = Omit<FinalResult, "document">;

export async function finalResults(
  models: ReadModels,
  log: LogSources,
  rerank: Rerank,
  request: z.infer<typeof ResultsRequestSchema>,
): Promise<ResultsReply> {
  const { limit, explain, ...query } = request;
  // As of a past point the documents are folded from the log with the candidates; a listing
  // reads them with its ids; otherwise only the final results' are read, below.
  const {
    candidates,
    documents: found,
    ...reply
  } = isAsOfRequest(query)
    ? withDocuments(await asOfCandidates(models, log, query))
    : await rankCandidates(models, query);
  // Which lexical generation serves the documents is read while ranking works, not after it
  // (its failure is the documents' read's).
  const generation =
    found || candidates.length === 0 || reply.unavailable.includes("lexical")
      ? undefined
      : models.lexical.activeGeneration();
  generation?.catch(() => undefined);
  const { ranked, ranking } = await reranked(rerank, request, candidates);
  const top = ranked.slice(0, limit);
  const ids = top.map((r) => r.candidate.id);
  const documents =
    found ?? (await visibleDocuments(models, request.principal, ids, reply.unavailable, generation));
  // A memory deleted or hidden between the query and the read is left out.
  const results = top.flatMap((r) => {
    const document = documents.get(r.candidate.id);
    return document ? [{ document, ...r }] : [];
  });
  return { ...reply, results, ranking };
}

async function reranked(
  rerank: Rerank,
  request: z.infer<typeof ResultsRequestSchema>,
  candidates: CandidateScores[],
): Promise<{ ranked: Ranked[]; ranking: ResultsReply["ranking"] }> {
  if (candidates.length === 0) return { ranked: [], ranking: "ranked" };
  try {
    const reply = await rerank({
      principal: request.principal,
      query: request.query,
      candidates,
      k: request.limit,
      explain: request.explain,
      expansions: request.expansions,
    });
    const byId = new Map(candidates.map((c) => [c.id, c]));
    const ranked = reply.results.flatMap(({ id, score, factors, signals, intent }) => {
      const candidate = byId.get(id);
      return candidate
        ? [{ candidate, score, factors: factors ?? null, signals: signals ?? null, intent: intent ?? null }]
        : [];
    });
    return { ranked, ranking: "ranked" };
  } catch (error) {
    if (!(error instanceof CairnError && error.code === "unavailable")) throw error;
    const ranked = candidates
      .filter((candidate) => passesFloor(candidate, undefined))
      .slice(0, request.limit)
      .map((candidate) => ({
        candidate,
        score: candidate.fused,
        factors: null,
        signals: null,
        intent: null,
      }));
    return { ranked, ranking: "search_order" };
  }
}

/** The candidates as scores (what ranking is sent), with the documents they were read with. */
function withDocuments({ candidates, ...reply }: CandidatesReply) {
  return {
    ...reply,
    candidates: candidates.map(({ document: _document, ...scores }): CandidateScores => scores),
    documents: new Map(candidates.map((c) => [c.id, c.document])),
  };
}
