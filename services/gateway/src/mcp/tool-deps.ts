import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";

/** What every tool gets: the use cases and the caller the MCP session is bound to. */
export type ToolDeps = { ops: Operations; caller: Caller };
