// Consolidation: groups of related active memories (old enough, one kind, one visibility
// domain) become one memory one level higher that supersedes them; the originals stay in
// history (superseded, each pointing at the consolidation). Related means similar enough by
// their topic words, keys, tags and entities (and, with `useVectors`, by the vector model).
import { limits, type MaintenanceAction, type MemorySignals } from "@cairn/contracts";
import { extractiveSummary } from "../summary/extractive-summary.ts";
import { jaccard } from "../text/text-features.ts";
import { cardWords, levelOf, type MemoryCard } from "../view/memory-card.ts";
import {
  ageDays,
  domainOf,
  errorText,
  type Job,
  type JobContext,
  type JobResult,
  liveMemories,
  planThenApply,
  round,
} from "./job-context.ts";

/** The features two memories are compared by: topic words, and their labels marked apart. */
export function features(card: MemoryCard): Set<string> {
  return new Set([
    ...cardWords(card),
    ...card.keys.map((k) => `key:${k.toLowerCase()}`),
    ...card.tags.map((t) => `tag:${t}`),
    ...card.entityWords.map((e) => `entity:${e}`),
  ]);
}

export type Group = { members: MemoryCard[]; similarity: number };

/**
 * Greedy grouping within one bucket: each memory in turn (oldest first) seeds a group and
 * takes the most similar others whose mean similarity to the group stays at the threshold,
 * up to `maxGroup`. A group smaller than `minGroup` is dropped and its members stay free.
 */
export function groupSimilar(
  cards: readonly MemoryCard[],
  options: { similarity: number; minGroup: number; maxGroup: number },
  extraSimilarity: (a: MemoryCard, b: MemoryCard) => number = () => 0,
): Group[] {
  const ordered = [...cards].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
  );
  const feats = new Map(ordered.map((c) => [c.id, features(c)]));
  const sim = (a: MemoryCard, b: MemoryCard) =>
    Math.max(jaccard(feats.get(a.id) ?? new Set(), feats.get(b.id) ?? new Set()), extraSimilarity(a, b));
  const taken = new Set<string>();
  const groups: Group[] = [];
  for (const seed of ordered) {
    if (taken.has(seed.id)) continue;
    const others = ordered
      .filter((c) => c.id !== seed.id && !taken.has(c.id))
      .map((c) => ({ card: c, s: sim(seed, c) }))
      .filter((x) => x.s >= options.similarity)
      .sort((a, b) => b.s - a.s);
    const members = [seed];
    for (const { card } of others) {
      if (members.length >= options.maxGroup) break;
      const mean = members.reduce((n, m) => n + sim(m, card), 0) / members.length;
      if (mean >= options.similarity) members.push(card);
    }
    if (members.length < options.minGroup) continue;
    let total = 0;
    let pairs = 0;
    for (let i = 0; i < members.length; i += 1) {
      for (let j = i + 1; j < members.length; j += 1) {
        total += sim(members[i] as MemoryCard, members[j] as MemoryCard);
        pairs += 1;
      }
    }
    for (const m of members) taken.add(m.id);
    groups.push({ members, similarity: pairs > 0 ? total / pairs : 1 });
  }
  return groups;
}

/** How much a memory is used: recalls, useful feedback and depth. */
function strength(signals: MemorySignals | undefined): number {
  if (!signals) return 0;
  return signals.recalls + 2 * signals.useful - signals.notUseful + 5 * signals.depth;
}

function limited(values: Iterable<string>, max: number, maxChars: number): string[] {
  return [...new Set(values)].filter((v) => v.length > 0 && v.length <= maxChars).slice(0, max);
}

export const consolidation: Job<"consolidation"> = async (ctx) => {
  const p = ctx.params;
  const candidates = liveMemories(ctx).filter((c) => ageDays(c.createdAt, ctx.now) >= p.minAgeDays);
  const buckets = new Map<string, MemoryCard[]>();
  for (const c of candidates) {
    const key = `${c.kind}|${domainOf(c)}`;
    buckets.set(key, [...(buckets.get(key) ?? []), c]);
  }
  const neighbours = new Map<string, Map<string, number>>();
  if (p.useVectors) await findVectorNeighbours(ctx, candidates, neighbours);
  const vectorSimilarity = (a: MemoryCard, b: MemoryCard) =>
    Math.max(neighbours.get(a.id)?.get(b.id) ?? 0, neighbours.get(b.id)?.get(a.id) ?? 0);

  const groups = [...buckets.values()]
    .filter((b) => b.length >= p.minGroup)
    .flatMap((b) => groupSimilar(b, p, vectorSimilarity))
    .slice(0, p.maxGroupsPerRun);
  const signals =
    groups.length > 0
      ? await safeSignals(
          ctx,
          groups.flatMap((g) => g.members.map((m) => m.id)),
        )
      : new Map();

  const result: JobResult = { examined: candidates.length, actions: [], positions: [] };
  let done = 0;
  for (const group of groups) {
    ctx.progress("consolidating", done, groups.length);
    result.actions.push(await consolidateGroup(ctx, group, signals, done, result.positions));
    done += 1;
  }
  ctx.progress("consolidated", done, groups.length);
  return result;
};

async function safeSignals(ctx: JobContext, ids: string[]): Promise<Map<string, MemorySignals>> {
  try {
    return await ctx.read.signals(ids, ctx.view.position);
  } catch (error) {
    // Without signals the oldest member gives its slot; the grouping does not depend on them.
    ctx.logger.warn(
      { err: errorText(error) },
      "signals unavailable; the oldest member names the consolidation",
    );
    return new Map();
  }
}

async function findVectorNeighbours(
  ctx: JobContext,
  cards: readonly MemoryCard[],
  into: Map<string, Map<string, number>>,
): Promise<void> {
  const texts = await ctx.loadTexts(cards.map((c) => c.id));
  let done = 0;
  for (const card of cards) {
    const text = texts.get(card.id);
    if (!text) continue;
    try {
      const hits = await ctx.read.vectorNeighbours(`${text.title}\n${text.content}`, 10);
      into.set(card.id, new Map(hits.filter((h) => h.id !== card.id).map((h) => [h.id, h.similarity])));
    } catch (error) {
      ctx.logger.warn({ err: errorText(error) }, "vector neighbours unavailable; grouping by words only");
      return;
    }
    done += 1;
    if (done % 50 === 0) ctx.progress("vector neighbours", done, cards.length);
  }
}

async function consolidateGroup(
  ctx: JobContext<"consolidation">,
  group: Group,
  signals: Map<string, MemorySignals>,
  index: number,
  positions: number[],
): Promise<MaintenanceAction> {
  const members = group.members;
  const namer = [...members].sort(
    (a, b) =>
      strength(signals.get(b.id)) - strength(signals.get(a.id)) || a.createdAt.localeCompare(b.createdAt),
  )[0] as MemoryCard;
  const level = Math.max(...members.map(levelOf)) + 1;
  const base: MaintenanceAction = {
    action: "consolidate",
    ids: members.map((m) => m.id),
    resultId: null,
    reasons: [
      `${members.length} active ${namer.kind} memories, each at least ${ctx.params.minAgeDays} days old`,
      `mean similarity ${round(group.similarity)} ≥ ${ctx.params.similarity}`,
    ],
    detail: { slot: namer.slot, level, similarity: round(group.similarity), summarizer: ctx.summarizer.name },
    status: "planned",
    error: null,
  };
  const texts = await ctx.loadTexts(members.map((m) => m.id));
  const ordered = [...members].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const input = {
    kind: namer.kind,
    memories: ordered.map((m) => texts.get(m.id) ?? { title: "", content: "" }),
    maxChars: limits.contentMaxChars,
  };
  // A dry run does not pay a model for a summary nobody keeps: it previews the extractive one.
  const summary =
    ctx.mode === "apply"
      ? await ctx.summarizer.summarize(input)
      : { ...extractiveSummary(input), summarizer: "extractive" };
  if (summary.content.trim() === "") {
    return { ...base, status: "skipped", error: "the members have no text to consolidate (purged?)" };
  }
  const payload = {
    members: members.map((m) => ({ id: m.id, expectedVersion: m.version })),
    consolidated: {
      slot: namer.slot,
      kind: namer.kind,
      content: summary.content,
      title: summary.title.slice(0, limits.titleMaxChars),
      tags: limited(
        members.flatMap((m) => m.tags),
        limits.maxTags,
        limits.tagMaxChars,
      ),
      aliases: limited(
        members.flatMap((m) => [m.slot, ...m.aliases]).filter((s) => s !== namer.slot),
        limits.maxAliases,
        limits.slotMaxChars,
      ),
      keys: limited(
        members.flatMap((m) => m.keys),
        limits.maxKeys,
        limits.tagMaxChars,
      ),
      scope: namer.scope,
      project: namer.project,
      source: `maintenance consolidation run ${ctx.runId}`,
    },
    level,
    reason: `consolidated with ${members.length - 1} related memories (maintenance run ${ctx.runId})`,
    runId: ctx.runId,
  };
  const { action } = await planThenApply(
    ctx,
    {
      ...base,
      detail: { ...base.detail, summarizer: summary.summarizer, contentChars: summary.content.length },
    },
    "memory.consolidate",
    payload,
    `consolidate:${index}`,
    positions,
  );
  return action;
}
