// `memory_search` / `GET /v1/memories?q=`: expansion and skip rules, candidates from search,
// re-ranking, and the recall record.
import type {
  AsOf,
  Candidate,
  Kind,
  MemoryDocument,
  RetrievalMode,
  SearchExplanation,
  Status,
  Tier,
} from "@cairn/contracts";
import type { SkipReason } from "../backend/ranking-contract.ts";
import type { Caller } from "./caller.ts";
import { expandQuery } from "./expand-query.ts";
import { explainResult } from "./explain-result.ts";
import { type OperationsDeps, type ReadOptions, recordRecalls } from "./operations-deps.ts";

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
  lexical: Candidate["lexical"];
  vector: Candidate["vector"];
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
  const { after, expansion } = await expandQuery(deps, caller, input.query, options);
  if (expansion.skip) return { results: [], ranking: "ranked", position: 0, skipped: expansion.skip };
  const limit = input.limit ?? 10;
  const reply = await deps.backend.candidates(caller.principal, {
    query: input.query,
    expansions: expansion.terms,
    mode: input.mode ?? "hybrid",
    candidateK: Math.min(500, Math.max(limit * 3, deps.rerankCandidates ?? 200)),
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
    ...(input.asOf === undefined ? {} : { asOf: input.asOf }),
  });
  const { ranked, ranking } = await deps.backend.rerank(
    caller.principal,
    input.query,
    reply.candidates,
    limit,
    expansion.terms,
    input.explain === true,
  );
  const results = ranked.slice(0, limit).map((r) => ({
    document: r.candidate.document,
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
  return { results, ranking, position: reply.position };
}
