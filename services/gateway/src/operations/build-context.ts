// `memory_context`: the first call of a task: the most relevant memories within a token
// budget, conflict hints, and the open proposals and handoffs. Candidates travel as ids and
// scores; only the re-ranked ones' documents are read.
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
  const [{ expansion, candidates }, proposals, handoffs] = await Promise.all([
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
    })),
    countOpen(deps, caller, "proposal", { afterPosition: after }),
    countOpen(deps, caller, "handoff", { afterPosition: after }),
  ]);
  const reply = await candidates;
  const reranked = expansion.skip
    ? { ranked: [], ranking: "ranked" as const }
    : await deps.backend.rerank(caller.principal, input.task, reply.candidates, 20, expansion.terms);
  const { ranking } = reranked;
  const documents = await deps.backend.documents(
    caller.principal,
    reranked.ranked.map((r) => r.candidate.id),
  );
  // A memory deleted or hidden between the query and the read is left out.
  const ranked = reranked.ranked.flatMap((r) => {
    const document = documents.get(r.candidate.id);
    return document ? [{ document, score: r.score }] : [];
  });
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
    ranking,
    position: reply.position,
    ...(expansion.skip ? { skipped: expansion.skip } : {}),
  };
}
