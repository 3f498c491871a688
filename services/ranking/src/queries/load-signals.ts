// Reads the signals of a set of memories from the signals read model, in few round trips (the
// per-memory reads as one pipeline, traced as one span).
import { getTracer, startBatchSpan } from "@cairn/telemetry";
import { depthAt } from "../projections/signals/signal-math.ts";
import { termHeat } from "../rerank/ranking-factors.ts";
import type { CandidateSignals } from "../rerank/rerank-candidates.ts";
import type { RequestContext } from "./ranking-context.ts";

const tracer = getTracer("@cairn/ranking");

export async function loadSignals(
  ctx: RequestContext,
  tenant: string,
  memories: { id: string; terms: string[] }[],
): Promise<Map<string, CandidateSignals>> {
  const paths = ctx.layout.signals(tenant);
  const now = ctx.clock();
  const pipeline = ctx.redis.pipeline();
  for (const m of memories) {
    pipeline.hgetall(paths.feedback(m.id));
    pipeline.hmget(paths.recalls(m.id), "count", "lastAt", "reads", "lastReadAt");
    pipeline.hmget(paths.depth(m.id), "value", "at");
  }
  const terms = [...new Set(memories.flatMap((m) => m.terms))];
  const [rows, attention, hot, maxAttention, maxHot] = await Promise.all([
    startBatchSpan(tracer, "redis signals", () => pipeline.exec(), {
      attributes: { "db.system": "redis", "cairn.redis.commands": pipeline.length },
    }),
    terms.length > 0 ? ctx.redis.zmscore(paths.attention, ...terms) : Promise.resolve([]),
    terms.length > 0 ? ctx.redis.zmscore(paths.hot, ...terms) : Promise.resolve([]),
    ctx.redis.zrange(paths.attention, -1, -1, "WITHSCORES"),
    ctx.redis.zrange(paths.hot, -1, -1, "WITHSCORES"),
  ]);
  // Attention on a log scale relative to the most attended term; heat relative to the
  // hottest term (both stored so that ratios are what counts).
  const topAttention = Number(maxAttention[1] ?? 0);
  const topHot = Number(maxHot[1] ?? Number.NEGATIVE_INFINITY);
  const attentionOf = new Map<string, number>();
  const hotOf = new Map<string, number>();
  terms.forEach((term, i) => {
    const a = attention[i];
    const h = hot[i];
    if (a != null && topAttention > 0)
      attentionOf.set(term, Math.log1p(Number(a)) / Math.log1p(topAttention));
    if (h != null && Number.isFinite(topHot)) hotOf.set(term, 2 ** (Number(h) - topHot));
  });
  const out = new Map<string, CandidateSignals>();
  memories.forEach((m, i) => {
    const feedback = (rows?.[i * 3]?.[1] ?? {}) as Record<string, string>;
    const [count, lastAt, reads, lastReadAt] = (rows?.[i * 3 + 1]?.[1] ?? []) as (string | null)[];
    const [depthValue, depthSince] = (rows?.[i * 3 + 2]?.[1] ?? []) as (string | null)[];
    const votes = Object.values(feedback).map(Number);
    out.set(m.id, {
      useful: votes.filter((v) => v > 0).length,
      notUseful: votes.filter((v) => v < 0).length,
      recalls: Number(count ?? 0),
      lastRecalledAt: lastAt ?? null,
      reads: Number(reads ?? 0),
      lastReadAt: lastReadAt ?? null,
      depth:
        depthValue != null && depthSince != null
          ? depthAt({ value: Number(depthValue), at: depthSince }, now, ctx.depth)
          : 0,
      attention: termHeat(m.terms.map((t) => attentionOf.get(t) ?? 0)),
      hotTopic: termHeat(m.terms.map((t) => hotOf.get(t) ?? 0)),
    });
  });
  return out;
}
