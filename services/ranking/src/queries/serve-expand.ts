import type { ExpandReply, ExpandRequestSchema } from "@cairn/contracts";
import type { z } from "zod";
import {
  type CooccurrenceLookups,
  cooccurrenceExpansions,
  expansionTerms,
  synonymExpansions,
} from "../expansion/expand-query.ts";
import { skipReason } from "../expansion/skip-rules.ts";
import { hubCount, type RequestContext, type TenantView } from "./ranking-context.ts";

export function cooccurrenceLookups(ctx: RequestContext, tenant: string): CooccurrenceLookups {
  const paths = ctx.layout.signals(tenant);
  return {
    entities: async (norms) => {
      const out = new Map<string, { count: number; label: string }>();
      if (norms.length === 0) return out;
      const [counts, labels] = await Promise.all([
        ctx.redis.zmscore(paths.entityCounts, ...norms),
        ctx.redis.hmget(paths.entityLabels, ...norms),
      ]);
      norms.forEach((norm, i) => {
        const count = counts[i];
        if (count != null) out.set(norm, { count: Number(count), label: labels[i] ?? norm });
      });
      return out;
    },
    cooccurring: async (norm, limit) => {
      const flat = await ctx.redis.zrange(paths.cooccurrence(norm), 0, limit - 1, "REV", "WITHSCORES");
      const out: { norm: string; count: number }[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2)
        out.push({ norm: flat[i] as string, count: Number(flat[i + 1]) });
      return out;
    },
  };
}

export async function handleExpand(
  ctx: RequestContext & { tenant: TenantView },
  request: z.infer<typeof ExpandRequestSchema>,
): Promise<ExpandReply> {
  const { position } = ctx;
  const tenant = request.principal.tenant;
  const { settings, live } = ctx.tenant;
  const skip = skipReason(request.query, settings, ctx.clock());
  if (skip) return { skip, expansions: [], terms: [], position };
  const expansions = [
    ...synonymExpansions(request.query, settings.synonyms),
    ...(await cooccurrenceExpansions(request.query, cooccurrenceLookups(ctx, tenant), {
      maxEntities: request.maxEntities ?? ctx.env.CAIRN_RANKING_EXPANSION_ENTITIES,
      minCooccurrence: ctx.env.CAIRN_RANKING_EXPANSION_MIN_COOCCURRENCE,
      hubCount: hubCount(ctx, live),
    })),
  ];
  return { skip: null, expansions, terms: expansionTerms(expansions), position };
}
