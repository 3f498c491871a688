// `memory_context`: the first call of a task: the most relevant memories within a token
// budget, conflict hints, and the open proposals and handoffs. Search has ranking re-rank the
// candidates and answers with the documents of the best 20 only.
import type { MemoryDocument } from "@cairn/contracts";
import type { SkipReason } from "../backend/ranking-contract.ts";
import type { Caller } from "./caller.ts";
import { type ConflictHint, findConflictHints } from "./conflict-hints.ts";
import { expandAndRetrieve } from "./expand-query.ts";
import { countOpen } from "./list-memories.ts";
import {
  afterPositionOf,
  defaultRerankCandidates,
  type OperationsDeps,
  type ReadOptions,
  recordRecalls,
} from "./operations-deps.ts";
import { packWithinBudget } from "./pack-within-budget.ts";

export type ContextInput = { task: string; budgetTokens?: number | undefined; project?: string | undefined };

export type ContextMemory = { document: MemoryDocument; score: number; truncatedTo: number | null };

export type ContextResult = {
  memories: ContextMemory[];
  /** Relevant memories left out for the budget: read them with memory_read if needed. */
  more: { id: string; slot: string; title: string }[];
  conflicts: ConflictHint[];
  pending: { proposals: number | null; handoffs: number | null };
  budgetTokens: number;
  usedTokens: number;
  ranking: "ranked" | "search_order";
  position: number;
  skipped?: SkipReason;
};

export async function context(
  deps: OperationsDeps,
  caller: Caller,
  input: ContextInput,
  options: ReadOptions = {},
): Promise<ContextResult> {
  const budgetTokens = input.budgetTokens ?? 2000;
  const after = await afterPositionOf(deps, caller, options);
  const [{ expansion, results }, proposals, handoffs] = await Promise.all([
    expandAndRetrieve(deps, caller, input.task, after, (expansions) => ({
      query: input.task,
      expansions,
      mode: "hybrid",
      candidateK: deps.rerankCandidates ?? defaultRerankCandidates,
      belowFloor: "mark",
      filters: {
        tier: "memory",
        status: ["active"],
        ...(input.project ? { project: input.project } : {}),
        includeExpired: false,
      },
      ...(after === undefined ? {} : { afterPosition: after }),
      limit: 20,
    })),
    countOpen(deps, caller, "proposal", { afterPosition: after }),
    countOpen(deps, caller, "handoff", { afterPosition: after }),
  ]);
  const reply = await results;
  const ranked = expansion.skip ? [] : reply.results;
  const packed = packWithinBudget(ranked, budgetTokens, (r) => ({
    text: `${r.document.title}\n${r.document.content}`,
    overheadTokens: 40,
  }));
  const memories = packed.included.map(({ item, truncatedTo }) => ({
    document: item.document,
    score: item.score,
    truncatedTo,
  }));
  recordRecalls(
    deps,
    caller,
    memories.map((m) => m.document.id),
    null,
    input.task,
  );
  return {
    memories,
    more: packed.omitted.map((r) => ({ id: r.document.id, slot: r.document.slot, title: r.document.title })),
    conflicts: findConflictHints(ranked.map((r) => r.document)),
    pending: { proposals, handoffs },
    budgetTokens,
    usedTokens: packed.usedTokens,
    ranking: expansion.skip ? "ranked" : reply.ranking,
    position: reply.position,
    ...(expansion.skip ? { skipped: expansion.skip } : {}),
  };
}
