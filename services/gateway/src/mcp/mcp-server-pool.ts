// MCP servers of the sessions this copy serves, kept between requests. A server is bound to
// its session's caller and episode, and serves one request at a time (an SDK Protocol has one
// transport): it is connected to the request's transport, and closed and put back once the
// answer is sent. Building one registers every tool (milliseconds, some 200 KB); reusing it
// makes that a cost of a session's first request on a copy, not of every request. Concurrent
// requests of one session each get a server of their own. The pool is bounded: past
// `maxIdleServers`, the least recently used sessions lose theirs (a later request builds one).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export type McpServerPool = {
  /** An idle server of the session, or a new one from `build`. */
  acquire(sessionId: string, build: () => McpServer): McpServer;
  /** Puts a server back once its request is answered and its transport closed. */
  release(sessionId: string, server: McpServer): void;
  /** Forgets a session's servers (it ended or expired). */
  drop(sessionId: string): void;
  readonly idleServers: number;
  close(): void;
};

type Entry = { idle: McpServer[]; lastUsed: number };

export function createMcpServerPool(options: {
  /** A session unused this long has its servers dropped. */
  idleMs: number;
  /** Idle servers kept in all (default 256, some 50 MB). */
  maxIdleServers?: number;
  /** Idle servers kept per session (default 2: a client that sends two requests at once). */
  maxIdlePerSession?: number;
}): McpServerPool {
  // In order of last use, least recent first (a Map iterates in insertion order).
  const entries = new Map<string, Entry>();
  const maxIdle = options.maxIdleServers ?? 256;
  const maxPerSession = options.maxIdlePerSession ?? 2;
  let idleServers = 0;
  const remove = (sessionId: string) => {
    const entry = entries.get(sessionId);
    if (!entry) return;
    idleServers -= entry.idle.length;
    entries.delete(sessionId);
  };
  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - options.idleMs;
      for (const [id, entry] of entries) if (entry.lastUsed < cutoff) remove(id);
    },
    Math.min(60_000, options.idleMs),
  );
  sweep.unref();
  return {
    acquire(sessionId, build) {
      const entry = entries.get(sessionId);
      const server = entry?.idle.pop();
      if (!server) return build();
      idleServers -= 1;
      return server;
    },
    release(sessionId, server) {
      const entry = entries.get(sessionId) ?? { idle: [], lastUsed: 0 };
      entry.lastUsed = Date.now();
      entries.delete(sessionId);
      entries.set(sessionId, entry);
      if (entry.idle.length >= maxPerSession) return;
      while (idleServers >= maxIdle) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined || oldest === sessionId) return;
        remove(oldest);
      }
      entry.idle.push(server);
      idleServers += 1;
    },
    drop: remove,
    get idleServers() {
      return idleServers;
    },
    close() {
      clearInterval(sweep);
      entries.clear();
      idleServers = 0;
    },
  };
}
