import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";

/**
 * What every tool gets: the use cases, the caller the MCP session is bound to, and the
 * session's episode (what the memories written in it share unless an agent names another).
 */
export type ToolDeps = { ops: Operations; caller: Caller; episode?: string | undefined };
