// `memory_search` / `GET /v1/memories?q=`: expansion and skip rules, candidates from search
// (ids and scores), re-ranking, the documents of the final results, and the recall record (sent
// after the answer is ready, never waited for).
import type {
  AsOf,
  CandidateIdsReply,
  CandidateScores,
  CandidatesReply,
  Kind,
  MemoryDocument,
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
  });
  // As of a past point the documents are folded from the log with the candidates; otherwise
  // only the final results' are read.
  const asOf = input.asOf;
  let expansion: ExpandReplyFields;
  let reply: CandidateIdsReply | CandidatesReply;
  let past: CandidatesReply | undefined;
  if (asOf === undefined) {
    const expanded = await expandAndRetrieve(deps, caller, input.query, after, request);
    expansion = expanded.expansion;
    if (expansion.skip) return { results: [], ranking: "ranked", position: 0, skipped: expansion.skip };
    reply = await expanded.candidates;
  } else {
    expansion = await deps.backend.expand(caller.principal, input.query, after);
    if (expansion.skip) return { results: [], ranking: "ranked", position: 0, skipped: expansion.skip };
    past = await deps.backend.candidates(caller.principal, { ...request(expansion.terms), asOf });
    reply = past;
  }
  const { ranked, ranking } = await deps.backend.rerank(
    caller.principal,
    input.query,
    reply.candidates,
    limit,
    expansion.terms,
    input.explain === true,
  );
  const top = ranked.slice(0, limit);
  const documents = past
    ? new Map(past.candidates.map((c) => [c.id, c.document]))
    : await deps.backend.documents(
        caller.principal,
        top.map((r) => r.candidate.id),
      );
  // A memory deleted or hidden between the query and the read is left out.
  const results = top.flatMap((r) => {
    const document = documents.get(r.candidate.id);
    if (!document) return [];
    return [
      {
        document,
        score: r.score,
        lexical: r.candidate.lexical,
        vector: r.candidate.vector,
        explanation: input.explain ? explainResult(r, reply, expansion.terms) : null,
      },
    ];
  });
  recordRecalls(
    deps,
    caller,
    results.map((r) => r.document.id),
    null,
    input.query,
  );
  return { results, ranking, position: reply.position };
}
