// The key graph: keys matching a question (`recall`), and the memories filed under one (`read_key`).
import type { CairnBackend } from "../backend/cairn-backend.ts";
import type { Caller } from "./caller.ts";
import { afterPositionOf, type OperationsDeps, type ReadOptions } from "./operations-deps.ts";

/** Reads the key graph as the caller: a question or a key, how many, at the read's position. */
function keyGraphRead<M extends "recallKeys" | "readKey">(method: M) {
  return async (
    deps: OperationsDeps,
    caller: Caller,
    text: string,
    limit: number,
    options: ReadOptions = {},
  ) => {
    const after = await afterPositionOf(deps, caller, options);
    return (await deps.backend[method](caller.principal, text, limit, after)) as Awaited<
      ReturnType<CairnBackend[M]>
    >;
  };
}

export const recall = keyGraphRead("recallKeys");
export const readKey = keyGraphRead("readKey");
