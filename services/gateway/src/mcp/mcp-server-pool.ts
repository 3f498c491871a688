// MCP servers of the sessions this copy serves, kept between requests. A server is bound to
// its session's caller and episode, and serves one request at a time (an SDK Protocol has one
// transport): it is connected to the request's transport, and closed and put back once the
// answer is sent. Building one registers every tool and costs milliseconds; reusing it makes
// that a cost of a session's first request on a copy, not of every request. Concurrent
// requests of one session each get a server of their own.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

export type McpServerPool = {
  /** An idle server of the session, or a new one from `build`. */
  acquire(sessionId: string, build: () => McpServer): McpServer;
  /** Puts a server back once its request is answered and its transport closed. */
  release(sessionId: string, server: McpServer): void;
  /** Forgets a session's servers (it ended or expired). */
  drop(sessionId: string): void;
  close(): Promise<void>;
};

type Entry = { idle: McpServer[]; lastUsed: number };

export function createMcpServerPool(options: {
  /** A session unused this long has its servers dropped. */
  idleMs: number;
  /** Sessions whose servers are kept; the least recently used go first. */
  maxSessions?: number;
  /** Idle servers kept per session (as many as it ran requests at once, up to this). */
  maxIdlePerSession?: number;
}): McpServerPool {
  const entries = new Map<string, Entry>();
  const maxSessions = options.maxSessions ?? 1000;
  const maxIdle = options.maxIdlePerSession ?? 4;
  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - options.idleMs;
      for (const [id, entry] of entries) if (entry.lastUsed < cutoff) entries.delete(id);
    },
    Math.min(60_000, options.idleMs),
  );
  sweep.unref();
  return {
    acquire(sessionId, build) {
      const entry = entries.get(sessionId);
      if (entry) {
        entry.lastUsed = Date.now();
        // Most recently used last, for the eviction below.
        entries.delete(sessionId);
        entries.set(sessionId, entry);
      }
      return entry?.idle.pop() ?? build();
    },
    release(sessionId, server) {
      let entry = entries.get(sessionId);
      if (!entry) {
        if (entries.size >= maxSessions) {
          const oldest = entries.keys().next().value;
          if (oldest !== undefined) entries.delete(oldest);
        }
        entry = { idle: [], lastUsed: Date.now() };
        entries.set(sessionId, entry);
      }
      if (entry.idle.length < maxIdle) entry.idle.push(server);
    },
    drop(sessionId) {
      entries.delete(sessionId);
    },
    async close() {
      clearInterval(sweep);
      entries.clear();
    },
  };
}
