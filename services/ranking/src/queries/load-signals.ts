// Reads the signals of a set of memories from the signals read model in one round trip: a
// script reads every memory's signals hash (recalls, depth and votes) and the terms' attention
// and heat inside Redis (one command to send and one reply to parse, not one per memory),
// traced as one span.
import { getTracer, startBatchSpan } from "@cairn/telemetry";
import { depthAt } from "../projections/signals/signal-math.ts";
import { termHeat } from "../rerank/ranking-factors.ts";
import type { CandidateSignals } from "../rerank/rerank-candidates.ts";
import { depthFields, isVoteField } from "../store/redis-layout.ts";
import type { RequestContext } from "./ranking-context.ts";

const tracer = getTracer("@cairn/ranking");

/**
 * KEYS: the attention and hot sorted sets, then each memory's signals hash. ARGV: the terms.
 * Answers the terms' attention and heat scores, the highest of each (member, score), then per
 * memory its hash (field, value, …): recalls, depth and votes in one read.
 */
const signalsScript = `
local function scores(key)
  local out = {}
  local i = 1
  while i <= #ARGV do
    local last = math.min(i + 999, #ARGV)
    local chunk = redis.call('ZMSCORE', key, unpack(ARGV, i, last))
    for j = 1, last - i + 1 do out[#out + 1] = chunk[j] end
    i = last + 1
  end
  return out
end
local reply = {
  scores(KEYS[1]),
  scores(KEYS[2]),
  redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES'),
  redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES'),
}
for k = 3, #KEYS do
  reply[#reply + 1] = redis.call('HGETALL', KEYS[k])
end
return reply
`;

type Field = string | null;

/** HGETALL's answer (field, value, field, value, …) by field. */
function memoryFields(flat: readonly Field[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) out.set(flat[i] as string, flat[i + 1] as string);
  return out;
}

export async function loadSignals(
  ctx: RequestContext,
  tenant: string,
  memories: { id: string; terms: string[] }[],
): Promise<Map<string, CandidateSignals>> {
  const out = new Map<string, CandidateSignals>();
  if (memories.length === 0) return out;
  const paths = ctx.layout.signals(tenant);
  const now = ctx.clock();
  const keys = [paths.attention, paths.hot];
  for (const m of memories) keys.push(paths.memory(m.id));
  const terms = [...new Set(memories.flatMap((m) => m.terms))];
  const reply = (await startBatchSpan(
    tracer,
    "redis signals",
    () => ctx.redis.eval(signalsScript, keys.length, ...keys, ...terms),
    {
      attributes: {
        "db.system": "redis",
        "cairn.redis.keys": keys.length,
        "cairn.terms.count": terms.length,
      },
    },
  )) as Field[][];
  const [attention = [], hot = [], maxAttention = [], maxHot = []] = reply;
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
  memories.forEach((m, i) => {
    const fields = memoryFields(reply[4 + i] ?? []);
    const [depthValue, depthSince] = depthFields.map((f) => fields.get(f));
    let useful = 0;
    let notUseful = 0;
    for (const [field, value] of fields) {
      if (!isVoteField(field)) continue;
      if (Number(value) > 0) useful += 1;
      else if (Number(value) < 0) notUseful += 1;
    }
    out.set(m.id, {
      useful,
      notUseful,
      recalls: Number(fields.get("count") ?? 0),
      lastRecalledAt: fields.get("lastAt") ?? null,
      reads: Number(fields.get("reads") ?? 0),
      lastReadAt: fields.get("lastReadAt") ?? null,
      depth:
        depthValue !== undefined && depthSince !== undefined
          ? depthAt({ value: Number(depthValue), at: depthSince }, now, ctx.depth)
          : 0,
      attention: termHeat(m.terms.map((t) => attentionOf.get(t) ?? 0)),
      hotTopic: termHeat(m.terms.map((t) => hotOf.get(t) ?? 0)),
    });
  });
  return out;
}
