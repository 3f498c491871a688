// `memory_search` / `GET /v1/memories?q=`: expansion and skip rules from ranking, the final
// results from search (which has ranking re-rank its candidates and reads only the results'
// documents), and the recall record (sent after the answer is ready, never waited for).
import type {
  AsOf,
  CandidateScores,
  Kind,
  MemoryDocument,
  ResultsReply,
  RetrievalMode,
  SearchExplanation,
  Status,
  Tier,
} from "@cairn/contracts";
import type { ExpandReplyFields, SkipReason } from "../backend/ranking-contract.ts";
import type { Caller } from "./caller.ts";
import { expandAndRetrieve } from "./expand-query.ts";
import { explainResult } from "./explain-result.ts";
import {
  afterPositionOf,
  defaultRerankCandidates,
  type OperationsDeps,
  type ReadOptions,
  recordRecalls,
} from "./operations-deps.ts";

export type SearchInput = {
  query: string;
  tier?: Tier | undefined;
  status?: Status[] | undefined;
  kind?: Kind[] | undefined;
  tags?: string[] | undefined;
  project?: string | undefined;
  agent?: string | undefined;
  mode?: RetrievalMode | undefined;
  limit?: number | undefined;
  includeExpired?: boolean | undefined;
  /** The memories as they were at a log position or time (found by today's index). */
  asOf?: AsOf | undefined;
  /** Each result with why it came back (relevance parts, episode, expansions, factors). */
  explain?: boolean | undefined;
};

export type SearchHit = {
  document: MemoryDocument;
  score: number;
  lexical: CandidateScores["lexical"];
  vector: CandidateScores["vector"];
  explanation: SearchExplanation | null;
};

export type SearchResult = {
  results: SearchHit[];
  ranking: "ranked" | "search_order";
  position: number;
  /** Set when the tenant's skip rules or workflow lock answered the query with nothing. */
  skipped?: SkipReason;
};

export async function search(
  deps: OperationsDeps,
  caller: Caller,
  input: SearchInput,
  options: ReadOptions = {},
): Promise<SearchResult> {
  const after = await afterPositionOf(deps, caller, options);
  const limit = input.limit ?? 10;
  const request = (expansions: string[]) => ({
    query: input.query,
    expansions,
    mode: input.mode ?? "hybrid",
    candidateK: Math.min(500, Math.max(limit * 3, deps.rerankCandidates ?? defaultRerankCandidates)),
    // Ranking judges what holds few of the question's words (the relevance floor's second step).
    belowFloor: "mark" as const,
    filters: {
      tier: input.tier ?? "memory",
      ...(input.status ? { status: input.status } : {}),
      ...(input.kind ? { kind: input.kind } : {}),
      ...(input.tags ? { tags: input.tags } : {}),
      ...(input.project ? { project: input.project } : {}),
      ...(input.agent ? { agent: input.agent } : {}),
      includeExpired: input.includeExpired ?? false,
    },
    ...(after === undefined ? {} : { afterPosition: after }),
    limit,
    explain: input.explain === true,
  });
  // As of a past point search folds the documents from the log, which is worth doing only
  // once: the expansion is waited for first.
  const asOf = input.asOf;
  let expansion: ExpandReplyFields;
  let reply: ResultsReply;
  if (asOf === undefined) {
    const expanded = await expandAndRetrieve(deps, caller, input.query, after, request);
    expansion = expanded.expansion;
    if (expansion.skip) return { results: [], ranking: "ranked", position: 0, skipped: expansion.skip };
    reply = await expanded.results;
  } else {
    expansion = await deps.backend.expand(caller.principal, input.query, after);
    if (expansion.skip) return { results: [], ranking: "ranked", position: 0, skipped: expansion.skip };
    reply = await deps.backend.results(caller.principal, { ...request(expansion.terms), asOf });
  }
  const results = reply.results.map((r) => ({
    document: r.document,
    score: r.score,
    lexical: r.candidate.lexical,
    vector: r.candidate.vector,
    explanation: input.explain ? explainResult(r, reply, expansion.terms) : null,
  }));
  recordRecalls(
    deps,
    caller,
    results.map((r) => r.document.id),
    null,
    input.query,
  );
  return { results, ranking: reply.ranking, position: reply.position };
}
