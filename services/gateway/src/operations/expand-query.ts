// Search and context start alike: the query's expansion terms and skip rules from ranking, and
// the final results from search, both read at the position the read waits for.
import type { ResultsReply, ResultsRequest } from "@cairn/contracts";
import type { ExpandReplyFields } from "../backend/ranking-contract.ts";
import type { Caller } from "./caller.ts";
import type { OperationsDeps } from "./operations-deps.ts";

export type ExpandedResults = {
  expansion: ExpandReplyFields;
  /** The results for the query with its expansion terms (also asked for when it is skipped). */
  results: Promise<ResultsReply>;
};

/**
 * The expansion and the results of a query read at `after`. Most queries expand to nothing,
 * so search is asked for the results without expansion terms beside the expansion, and asked
 * again with its terms only when there are some: a recall does not wait for ranking and then
 * for search, one after the other. The answer is the same as asking in turn.
 */
export async function expandAndRetrieve(
  deps: OperationsDeps,
  caller: Caller,
  query: string,
  after: number | undefined,
  request: (expansions: string[]) => Omit<ResultsRequest, "principal">,
): Promise<ExpandedResults> {
  const unexpanded = handled(deps.backend.results(caller.principal, request([])));
  const expansion = await deps.backend.expand(caller.principal, query, after);
  const results =
    expansion.skip || expansion.terms.length === 0
      ? unexpanded
      : handled(deps.backend.results(caller.principal, request(expansion.terms)));
  return { expansion, results };
}

/**
 * The same promise, its failure marked handled: it is awaited by the caller, unless the
 * expansion made it moot or the caller failed first, and then its failure is nobody's.
 */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
