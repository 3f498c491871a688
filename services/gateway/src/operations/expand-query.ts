// Search and context start alike: the query's expansion terms and skip rules from ranking, and
// the candidates from search, both read at the position the read waits for.
import type { CandidateIdsReply, CandidateIdsRequest } from "@cairn/contracts";
import type { ExpandReplyFields } from "../backend/ranking-contract.ts";
import type { Caller } from "./caller.ts";
import type { OperationsDeps } from "./operations-deps.ts";

export type ExpandedCandidates = {
  expansion: ExpandReplyFields;
  /** The candidates for the query with its expansion terms (also asked for when it is skipped). */
  candidates: Promise<CandidateIdsReply>;
};

/**
 * The expansion and the candidates of a query read at `after`. Most queries expand to nothing,
 * so search is asked for the candidates without expansion terms beside the expansion, and asked
 * again with its terms only when there are some: a recall does not wait for ranking and then
 * for search, one after the other. The answer is the same as asking in turn.
 */
export async function expandAndRetrieve(
  deps: OperationsDeps,
  caller: Caller,
  query: string,
  after: number | undefined,
  request: (expansions: string[]) => Omit<CandidateIdsRequest, "principal">,
): Promise<ExpandedCandidates> {
  const unexpanded = handled(deps.backend.candidateIds(caller.principal, request([])));
  const expansion = await deps.backend.expand(caller.principal, query, after);
  const candidates =
    expansion.skip || expansion.terms.length === 0
      ? unexpanded
      : handled(deps.backend.candidateIds(caller.principal, request(expansion.terms)));
  return { expansion, candidates };
}

/**
 * The same promise, its failure marked handled: it is awaited by the caller, unless the
 * expansion made it moot or the caller failed first, and then its failure is nobody's.
 */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
