// The key graph: keys matching a question (`recall`), and the memories filed under one (`read_key`).
import type { Caller } from "./caller.ts";
import { afterPositionOf, type OperationsDeps, type ReadOptions } from "./operations-deps.ts";

export async function recall(
  deps: OperationsDeps,
  caller: Caller,
  query: string,
  limit: number,
  options: ReadOptions = {},
) {
  return deps.backend.recallKeys(caller.principal, query, limit, afterPositionOf(deps, caller, options));
}

export async function readKey(
  deps: OperationsDeps,
  caller: Caller,
  key: string,
  limit: number,
  options: ReadOptions = {},
) {
  return deps.backend.readKey(caller.principal, key, limit, afterPositionOf(deps, caller, options));
}
