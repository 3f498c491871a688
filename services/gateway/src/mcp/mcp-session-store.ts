// What an MCP session is once the request that carried it is answered: the API key that
// opened it and the episode its memories are written in. The transport and the MCP server
// live only for one request (see mcp-http-route.ts), so any gateway copy that can read this
// record can serve the session: the copies share the records in Redis
// (shared-state/shared-mcp-session-store.ts); this in-memory store serves one copy alone.
import { CairnError } from "@cairn/contracts";

export type McpSession = {
  /** The API key that opened the session; only it may use the session. */
  keyId: string;
  /** What the memories written in the session share (not the session id, which authenticates). */
  episode: string;
};

export type McpSessionStore = {
  open(id: string, session: McpSession): Promise<void>;
  /**
   * The session, its idle time started again; undefined when it ended or expired. Throws
   * `unavailable` when it cannot be told (the shared store is away and this copy never saw it).
   */
  find(id: string): Promise<McpSession | undefined>;
  /** Ends the session for every copy (throws `unavailable` when that cannot be done now). */
  end(id: string): Promise<void>;
  close(): void;
};

type Kept = { session: McpSession; lastSeen: number; unsynced: boolean };

/**
 * Sessions in this process's memory, each dropped after `idleMs` unused. The shared store
 * keeps one too, as what the copy still knows while Redis is away.
 */
export type LocalMcpSessions = {
  get(id: string, now?: number): Kept | undefined;
  keep(id: string, session: McpSession, options?: { unsynced?: boolean; now?: number }): Kept;
  forget(id: string): void;
  /** Sessions opened while the shared store was away, with how long each has left. */
  unsynced(now?: number): { id: string; kept: Kept; remainingMs: number }[];
  readonly size: number;
  close(): void;
};

export function createLocalMcpSessions(options: { idleMs: number; maxSessions?: number }): LocalMcpSessions {
  const sessions = new Map<string, Kept>();
  const maxSessions = options.maxSessions ?? 100_000;
  const expired = (kept: Kept, now: number) => now - kept.lastSeen >= options.idleMs;
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, kept] of sessions) if (expired(kept, now)) sessions.delete(id);
    },
    Math.min(60_000, options.idleMs),
  );
  sweep.unref();
  return {
    get(id, now = Date.now()) {
      const kept = sessions.get(id);
      if (!kept) return undefined;
      if (expired(kept, now)) {
        sessions.delete(id);
        return undefined;
      }
      kept.lastSeen = now;
      return kept;
    },
    keep(id, session, { unsynced = false, now = Date.now() } = {}) {
      if (!sessions.has(id) && sessions.size >= maxSessions) {
        // The least recently kept goes first (a Map iterates in insertion order).
        const oldest = sessions.keys().next().value;
        if (oldest !== undefined) sessions.delete(oldest);
      }
      const kept = { session, lastSeen: now, unsynced };
      sessions.delete(id);
      sessions.set(id, kept);
      return kept;
    },
    forget(id) {
      sessions.delete(id);
    },
    unsynced(now = Date.now()) {
      return [...sessions]
        .filter(([, kept]) => kept.unsynced && !expired(kept, now))
        .map(([id, kept]) => ({ id, kept, remainingMs: options.idleMs - (now - kept.lastSeen) }));
    },
    get size() {
      return sessions.size;
    },
    close() {
      clearInterval(sweep);
      sessions.clear();
    },
  };
}

/** Sessions of one gateway copy only (no shared store configured). */
export function createLocalMcpSessionStore(options: { idleMs: number }): McpSessionStore {
  const local = createLocalMcpSessions(options);
  return {
    async open(id, session) {
      local.keep(id, session);
    },
    async find(id) {
      return local.get(id)?.session;
    },
    async end(id) {
      local.forget(id);
    },
    close: () => local.close(),
  };
}

/** The 503 of a session request that cannot be decided while the shared store is away. */
export function sessionStoreUnavailable(): CairnError {
  return new CairnError(
    "unavailable",
    "MCP sessions cannot be checked right now (the session store is away)",
    {
      hint: "retry after a few seconds; the session is kept",
    },
  );
}
