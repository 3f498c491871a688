// `memory_context`: the first call of a task: the most relevant memories within a token
// budget, conflict hints, and the open proposals and handoffs.
import type { MemoryDocument } from "@cairn/contracts";
import type { SkipReason } from "../backend/ranking-contract.ts";
import type { Caller } from "./caller.ts";
import { type ConflictHint, findConflictHints } from "./conflict-hints.ts";
import { expandQuery } from "./expand-query.ts";
import { countOpen } from "./list-memories.ts";
import { type OperationsDeps, type ReadOptions, recordRecalls } from "./operations-deps.ts";
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
  const { after, expansion } = await expandQuery(deps, caller, input.task, options);
  const [reply, proposals, handoffs] = await Promise.all([
    deps.backend.candidates(caller.principal, {
      query: input.task,
      expansions: expansion.skip ? [] : expansion.terms,
      mode: "hybrid",
      candidateK: deps.rerankCandidates ?? 200,
      filters: {
        tier: "memory",
        status: ["active"],
        ...(input.project ? { project: input.project } : {}),
        includeExpired: false,
      },
      ...(after === undefined ? {} : { afterPosition: after }),
    }),
    countOpen(deps, caller, "proposal", { afterPosition: after }),
    countOpen(deps, caller, "handoff", { afterPosition: after }),
  ]);
  const { ranked, ranking } = expansion.skip
    ? { ranked: [], ranking: "ranked" as const }
    : await deps.backend.rerank(caller.principal, input.task, reply.candidates, 20, expansion.terms);
  const packed = packWithinBudget(ranked, budgetTokens, (r) => ({
    text: `${r.candidate.document.title}\n${r.candidate.document.content}`,
    overheadTokens: 40,
  }));
  const memories = packed.included.map(({ item, truncatedTo }) => ({
    document: item.candidate.document,
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
    more: packed.omitted.map((r) => ({
      id: r.candidate.id,
      slot: r.candidate.document.slot,
      title: r.candidate.document.title,
    })),
    conflicts: findConflictHints(ranked.map((r) => r.candidate.document)),
    pending: { proposals, handoffs },
    budgetTokens,
    usedTokens: packed.usedTokens,
    ranking,
    position: reply.position,
    ...(expansion.skip ? { skipped: expansion.skip } : {}),
  };
}
