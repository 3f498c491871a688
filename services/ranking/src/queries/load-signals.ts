// Reads the signals of a set of memories from the signals read model in one round trip, as one
// transaction (MULTI … EXEC, so what it reads is one state of the read model): the terms'
// attention and heat with `ZMSCORE`, the highest of each, and every memory's signals hash
// (recalls, depth and votes) by a script (one command, not one per memory), traced as one span.
// The scores are not read through a script: a script's `ZMSCORE` turns every term and score
// into a Lua value and back, which took Redis about twice as long as this transaction.
import { getTracer, startBatchSpan } from "@cairn/telemetry";
import { depthAt } from "../projections/signals/signal-math.ts";
import { termHeat } from "../rerank/ranking-factors.ts";
import type { CandidateSignals } from "../rerank/rerank-candidates.ts";
import { readTransaction } from "../store/read-transaction.ts";
import { depthFields, isVoteField } from "../store/redis-layout.ts";
import type { RequestContext } from "./ranking-context.ts";

const tracer = getTracer("@cairn/ranking");

/** KEYS: each memory's signals hash. Answers each hash (field, value, …) in their order. */
const hashesScript = `
local reply = {}
for k = 1, #KEYS do reply[k] = redis.call('HGETALL', KEYS[k]) end
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
  const hashKeys = memories.map((m) => paths.memory(m.id));
  const terms = [...new Set(memories.flatMap((m) => m.terms))];
  const results = await startBatchSpan(
    tracer,
    "redis signals",
    () => {
      const read = ctx.redis.multi();
      // ZMSCORE needs a member: memories without terms ask for no score.
      if (terms.length > 0) read.zmscore(paths.attention, ...terms).zmscore(paths.hot, ...terms);
      read
        .zrange(paths.attention, -1, -1, "WITHSCORES")
        .zrange(paths.hot, -1, -1, "WITHSCORES")
        .eval(hashesScript, hashKeys.length, ...hashKeys);
      return readTransaction(read);
    },
    {
      attributes: {
        "db.system": "redis",
        "cairn.redis.keys": hashKeys.length + 2,
        "cairn.terms.count": terms.length,
      },
    },
  );
  const [attention = [], hot = []] = (terms.length > 0 ? results.slice(0, 2) : []) as Field[][];
  const [maxAttention = [], maxHot = [], hashes = []] = results.slice(terms.length > 0 ? 2 : 0) as [
    Field[],
    Field[],
    Field[][],
  ];
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
    const fields = memoryFields(hashes[i] ?? []);
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
