// Every version of a memory, from the log: `GET /v1/memories/{id}/history` and `memory_history`.
import type { HistoryReply } from "@cairn/contracts";
import type { Caller } from "./caller.ts";
import { afterPositionOf, type OperationsDeps, type ReadOptions } from "./operations-deps.ts";

export async function memoryHistory(
  deps: OperationsDeps,
  caller: Caller,
  id: string,
  options: ReadOptions = {},
): Promise<HistoryReply> {
  return deps.backend.history(caller.principal, id, await afterPositionOf(deps, caller, options));
}
