// Forgetting: memories nobody uses are archived (reversibly: restore brings one back). A
// memory is forgotten only when every dimension says so: old enough, never found useful, low
// in emotion, attention and depth, and not recalled lately; each decision lists them with
// their values. A memory with positive feedback or with depth above the bound is never
// forgotten, whatever else holds. Without ranking's signals nothing is forgotten.
import { type MaintenanceAction, type MemorySignals, noMemorySignals } from "@cairn/contracts";
import type { MemoryCard } from "../view/memory-card.ts";
import { ageDays, type Job, type JobResult, liveMemories, planThenApply, round } from "./job-context.ts";

export type ForgetDecision = { forget: true; reasons: string[] } | { forget: false; kept: string };

export function decideForgetting(
  card: MemoryCard,
  signals: MemorySignals | undefined,
  params: {
    minAgeDays: number;
    recallWindowDays: number;
    maxEmotion: number;
    maxAttention: number;
    maxDepth: number;
  },
  now: Date,
): ForgetDecision {
  const age = ageDays(card.createdAt, now);
  if (age < params.minAgeDays) return { forget: false, kept: "young" };
  const s = signals ?? noMemorySignals;
  if (s.useful > 0) return { forget: false, kept: "positive feedback" };
  if (s.depth > params.maxDepth) return { forget: false, kept: "deep" };
  const emotion = Math.abs(card.sentiment);
  if (emotion > params.maxEmotion) return { forget: false, kept: "emotional" };
  if (s.attention > params.maxAttention) return { forget: false, kept: "attended" };
  const recalledDaysAgo = s.lastRecalledAt === null ? null : ageDays(s.lastRecalledAt, now);
  if (recalledDaysAgo !== null && recalledDaysAgo < params.recallWindowDays) {
    return { forget: false, kept: "recalled lately" };
  }
  return {
    forget: true,
    reasons: [
      `age ${Math.floor(age)} days ≥ ${params.minAgeDays}`,
      s.notUseful > 0 ? `no positive feedback (${s.notUseful} not useful)` : "no positive feedback",
      `emotion ${round(emotion)} ≤ ${params.maxEmotion}`,
      `attention ${round(s.attention)} ≤ ${params.maxAttention}`,
      `depth ${round(s.depth)} ≤ ${params.maxDepth}`,
      recalledDaysAgo === null
        ? "never recalled"
        : `last recalled ${Math.floor(recalledDaysAgo)} days ago ≥ ${params.recallWindowDays}`,
    ],
  };
}

export const forgetting: Job<"forgetting"> = async (ctx) => {
  const p = ctx.params;
  const candidates = liveMemories(ctx).filter(
    (c) => p.kinds.includes(c.kind) && ageDays(c.createdAt, ctx.now) >= p.minAgeDays,
  );
  const result: JobResult = { examined: candidates.length, actions: [], positions: [] };
  if (candidates.length === 0) return result;
  ctx.progress("reading signals", 0, candidates.length);
  // No signals, no forgetting: an unreachable ranking fails the run instead of guessing.
  const signals = await ctx.read.signals(
    candidates.map((c) => c.id),
    ctx.view.position,
  );
  const chosen: { card: MemoryCard; reasons: string[] }[] = [];
  for (const card of candidates) {
    const decision = decideForgetting(card, signals.get(card.id), p, ctx.now);
    if (decision.forget) chosen.push({ card, reasons: decision.reasons });
    if (chosen.length >= p.maxPerRun) break;
  }
  if (chosen.length === 0) return result;
  const actions: MaintenanceAction[] = chosen.map(({ card, reasons }) => ({
    action: "archive",
    ids: [card.id],
    resultId: null,
    reasons,
    detail: { kind: card.kind, slot: card.slot },
    status: "planned",
    error: null,
  }));
  ctx.progress("forgetting", 0, chosen.length);
  const { action } = await planThenApply(
    ctx,
    { action: "archive", ids: [], resultId: null, reasons: [], detail: {}, status: "planned", error: null },
    "memory.forget",
    {
      items: chosen.map(({ card, reasons }) => ({ id: card.id, expectedVersion: card.version, reasons })),
      runId: ctx.runId,
    },
    "forget",
    result.positions,
  );
  // One command archives the whole set (or nothing): every decision shares its outcome.
  result.actions = actions.map((a) => ({ ...a, status: action.status, error: action.error }));
  ctx.progress("forgot", chosen.length, chosen.length);
  return result;
};
