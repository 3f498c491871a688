// MCP servers kept between HTTP requests. Building one registers every tool (milliseconds and
// some 200 KB), so servers are reused: each serves one request at a time (an SDK Protocol has
// one transport), connected to the request's transport, then closed and put back once the
// answer is sent. Its tools read the caller and the episode from the server's binding when
// they run (see tool-deps.ts), and the binding is set to the request's before the server is
// handed out, so any idle server serves any session's request: the pool holds as many servers
// as requests ran at once, not one per session, and no session's first request on a copy
// waits for a server to be built.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";
import type { ToolDeps } from "./tool-deps.ts";

/** A server and the binding its tools read: whose request it serves now. */
export type PooledMcpServer = { server: McpServer; binding: ToolDeps };

export type McpServerPool = {
  /** An idle server (or a new one), bound to this request's caller and session episode. */
  acquire(request: { caller: Caller; episode: string }): PooledMcpServer;
  /** Puts a server back once its request is answered and its transport closed. */
  release(pooled: PooledMcpServer): void;
  readonly idleServers: number;
};

export function createMcpServerPool(options: {
  ops: Operations;
  build: (deps: ToolDeps) => McpServer;
  /** Idle servers kept (default 32: as many requests at once as the copy served lately). */
  maxIdleServers?: number;
}): McpServerPool {
  const idle: PooledMcpServer[] = [];
  const maxIdle = options.maxIdleServers ?? 32;
  return {
    acquire({ caller, episode }) {
      const pooled = idle.pop();
      if (pooled) {
        pooled.binding.caller = caller;
        pooled.binding.episode = episode;
        return pooled;
      }
      const binding: ToolDeps = { ops: options.ops, caller, episode };
      return { server: options.build(binding), binding };
    },
    release(pooled) {
      if (idle.length < maxIdle) idle.push(pooled);
    },
    get idleServers() {
      return idle.length;
    },
  };
}
