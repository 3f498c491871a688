import { defaultRankingWeights, type RerankReply, type RerankRequestSchema } from "@cairn/contracts";
import { getTracer, recallStageHistogram, startSpan } from "@cairn/telemetry";
import type { z } from "zod";
import { skipReason } from "../expansion/skip-rules.ts";
import { isVisibleTo, type MemoryCard } from "../projections/memory-card/memory-card.ts";
import { intentOfCandidates } from "../query-understanding/intent-of-candidates.ts";
import { rerankCandidates } from "../rerank/rerank-candidates.ts";
import { loadSignals } from "./load-signals.ts";
import {
  type RankingContext,
  type RequestContext,
  type TenantView,
  withTenantCards,
} from "./ranking-context.ts";

const tracer = getTracer("@cairn/ranking");
// The recall stages share one histogram: search records lexical, vector and fusion, ranking
// records rerank.
const stageDuration = recallStageHistogram();

/**
 * `cairn.ranking.rerank`, in a `rerank` span with the candidate and result counts. The tenant's
 * view and the candidates' cards are read together, once the read models have reached the
 * position asked for.
 */
export function handleRerank(ctx: RankingContext, request: z.infer<typeof RerankRequestSchema>) {
  const started = performance.now();
  return startSpan(
    tracer,
    "rerank",
    async (span) => {
      const { context, cards } = await withTenantCards(
        ctx,
        request,
        request.candidates.map((c) => c.id),
      );
      const reply = await rerank(context, cards, request);
      span.setAttribute("cairn.results.count", reply.results.length);
      if (reply.skip) span.setAttribute("cairn.skip", reply.skip.reason);
      stageDuration.record((performance.now() - started) / 1000, { stage: "rerank" });
      return reply;
    },
    {
      attributes: {
        "cairn.stage": "rerank",
        "cairn.candidates.count": request.candidates.length,
        "cairn.expansions.count": request.expansions.length,
        "cairn.k": request.k,
      },
    },
  );
}

async function rerank(
  ctx: RequestContext & { tenant: TenantView },
  cards: Map<string, MemoryCard>,
  request: z.infer<typeof RerankRequestSchema>,
): Promise<RerankReply> {
  const { position } = ctx;
  const tenant = request.principal.tenant;
  const { settings } = ctx.tenant;
  const now = ctx.clock();
  // The same rule as `expand`, so a caller that skipped the expansion still gets nothing.
  const skip = skipReason(request.query, settings, now);
  if (skip) return { results: [], skip, position };
  // The memories' terms, age and sentiment come from ranking's own cards (read with the
  // tenant's view): nothing is analysed per query and no document travels.
  //
  // A memory ranking knows the caller may not see is no candidate of its (the memory model's
  // rule, as `signals` applies it): its score and signals are never answered. One ranking has
  // no card of yet is judged by its caller's finding it.
  const candidates = request.candidates.filter((c) => {
    const card = cards.get(c.id);
    return card === undefined || isVisibleTo(card, request.principal);
  });
  const memories = candidates.map((c) => ({
    id: c.id,
    // Heat needs only the leading terms; this keeps one request small for 200 long candidates.
    terms: (cards.get(c.id)?.terms ?? []).slice(0, 64),
  }));
  const signals = await loadSignals(ctx, tenant, memories);
  const results = rerankCandidates({
    candidates,
    memoryOf: (id) => cards.get(id),
    signals,
    weights: { ...defaultRankingWeights, ...settings.rankingWeights },
    now,
    k: request.k,
    explain: request.explain,
    intentOf: intentOfCandidates(request.query, now, cards),
  });
  return { results, skip: null, position };
}
