import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";

/**
 * What every tool gets: the use cases, the caller of the request, and its MCP session's
 * episode (what the memories written in it share unless an agent names another). A tool reads
 * `caller` and `episode` when it runs, never when it is registered: over HTTP one server
 * serves many sessions' requests, one after another, and is bound to each request's caller
 * and episode before it runs (see mcp-server-pool.ts).
 */
export type ToolDeps = { ops: Operations; caller: Caller; episode?: string | undefined };
