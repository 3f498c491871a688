// MCP sessions in Redis, so a session opened through one gateway copy is served by any other.
// A session is a small record (the API key that opened it, its episode) under the SHA-256 of
// its id, which authenticates and is never stored as is; each use restarts its expiry (GETEX
// PX), so it ends `idleMs` after its last use, as one copy's sessions always did. Ending a
// session deletes the record: every copy refuses it from then on.
//
// While Redis is away, a copy serves the sessions it knows (it keeps each one it opened or
// served) and opens new ones in its memory; those are written to Redis once it is back. A
// session this copy never saw cannot be told from one that ended: that request is a 503 with
// Retry-After, and so is ending a session (it would end here only).
import { createHash } from "node:crypto";
import {
  createLocalMcpSessions,
  type McpSession,
  type McpSessionStore,
  sessionStoreUnavailable,
} from "../mcp/mcp-session-store.ts";
import type { SharedRedis } from "./shared-redis.ts";

function parseSession(value: string): McpSession | undefined {
  try {
    const parsed = JSON.parse(value) as Partial<McpSession>;
    return typeof parsed.keyId === "string" && typeof parsed.episode === "string"
      ? { keyId: parsed.keyId, episode: parsed.episode }
      : undefined;
  } catch {
    return undefined;
  }
}

export function createSharedMcpSessionStore(
  shared: SharedRedis,
  options: { idleMs: number },
): McpSessionStore {
  const local = createLocalMcpSessions({ idleMs: options.idleMs });
  const keyOf = (id: string) =>
    shared.key(`mcp-session:${createHash("sha256").update(id).digest("base64url")}`);
  const recordOf = (session: McpSession) =>
    JSON.stringify({ keyId: session.keyId, episode: session.episode });

  // Sessions opened while Redis was away become everyone's once it is back.
  shared.onRecovered(async (redis) => {
    const pending = local.unsynced();
    if (pending.length === 0) return;
    const batch = redis.pipeline();
    for (const { id, kept } of pending)
      batch.set(keyOf(id), recordOf(kept.session), "PX", options.idleMs, "NX");
    // A pipeline answers each command's error instead of failing: a session is everyone's once
    // its own write answered, and one that did not stays unsynced (the recovery runs again).
    const results = (await batch.exec()) ?? [];
    let failure: Error | undefined;
    pending.forEach(({ kept }, i) => {
      const error = results[i] ? results[i][0] : new Error("redis did not answer the write");
      if (error) failure ??= error;
      else kept.unsynced = false;
    });
    if (failure) throw failure;
  });

  return {
    async open(id, session) {
      const kept = local.keep(id, session, { unsynced: true });
      await shared.attempt(
        async (redis) => {
          await redis.set(keyOf(id), recordOf(session), "PX", options.idleMs);
          kept.unsynced = false;
        },
        () => {},
      );
    },
    find(id) {
      return shared.attempt(
        async (redis) => {
          const value = await redis.getex(keyOf(id), "PX", options.idleMs);
          const session = value === null ? undefined : parseSession(value);
          if (session) {
            local.keep(id, session);
            return session;
          }
          // Opened here while Redis was away, and not written back yet: write it now.
          const kept = local.get(id);
          if (kept?.unsynced) {
            await redis.set(keyOf(id), recordOf(kept.session), "PX", options.idleMs);
            kept.unsynced = false;
            return kept.session;
          }
          local.forget(id);
          return undefined;
        },
        () => {
          const kept = local.get(id);
          if (!kept) throw sessionStoreUnavailable();
          return kept.session;
        },
      );
    },
    end(id) {
      return shared.attempt(
        async (redis) => {
          await redis.del(keyOf(id));
          local.forget(id);
        },
        () => {
          throw sessionStoreUnavailable();
        },
      );
    },
    close: () => local.close(),
  };
}
