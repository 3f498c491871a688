// Search and context start alike: the position the read waits for, then the query's expansion
// terms and skip rules from ranking, read at that position.
import type { Caller } from "./caller.ts";
import { afterPositionOf, type OperationsDeps, type ReadOptions } from "./operations-deps.ts";

export async function expandQuery(deps: OperationsDeps, caller: Caller, query: string, options: ReadOptions) {
  const after = await afterPositionOf(deps, caller, options);
  const expansion = await deps.backend.expand(caller.principal, query, after);
  return { after, expansion };
}
