import { defaultRankingWeights, type RerankReply, type RerankRequestSchema } from "@cairn/contracts";
import type { z } from "zod";
import { skipReason } from "../expansion/skip-rules.ts";
import { distinctTerms } from "../projections/memory-card/memory-card.ts";
import { readTenantSettings } from "../projections/signals/signals-projection.ts";
import { rerankCandidates } from "../rerank/rerank-candidates.ts";
import { loadSignals } from "./load-signals.ts";
import { type RankingContext, waitForPosition } from "./ranking-context.ts";

export async function handleRerank(
  ctx: RankingContext,
  request: z.infer<typeof RerankRequestSchema>,
): Promise<RerankReply> {
  const position = await waitForPosition(ctx, request.afterPosition);
  const tenant = request.principal.tenant;
  const settings = await readTenantSettings(ctx.redis, ctx.layout.signals(tenant).settings);
  const now = ctx.clock();
  // The same rule as `expand`, so a caller that skipped the expansion still gets nothing.
  const skip = skipReason(request.query, settings, now);
  if (skip) return { results: [], skip, position };
  const memories = request.candidates.map((c) => ({
    id: c.id,
    terms: distinctTerms(`${c.document.title}\n${c.document.content}`),
  }));
  const signals = await loadSignals(ctx, tenant, memories);
  const results = rerankCandidates({
    candidates: request.candidates,
    signals,
    weights: { ...defaultRankingWeights, ...settings.rankingWeights },
    now,
    k: request.k,
    explain: request.explain,
  });
  return { results, skip: null, position };
}
