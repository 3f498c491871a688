// Everything the gateway's copies share, on one Redis connection: MCP sessions, rate limits,
// the failed-key throttle and the callers' last write positions. Each falls back to the
// copy's own memory while Redis is away (see shared-redis.ts).
import type { AuthFailureOptions, AuthFailureThrottle } from "../auth/auth-failure-throttle.ts";
import type { RateLimiter, RateLimitOptions } from "../auth/rate-limiter.ts";
import type { McpSessionStore } from "../mcp/mcp-session-store.ts";
import type { WritePositions } from "../operations/caller.ts";
import { createSharedAuthFailureThrottle } from "./shared-auth-failure-throttle.ts";
import { createSharedMcpSessionStore } from "./shared-mcp-session-store.ts";
import { createSharedRateLimiter } from "./shared-rate-limiter.ts";
import { connectSharedRedis, type SharedRedis, type SharedRedisOptions } from "./shared-redis.ts";
import { createSharedWritePositions } from "./shared-write-positions.ts";

export type SharedState = {
  shared: SharedRedis;
  rateLimiter: RateLimiter;
  authFailureThrottle: AuthFailureThrottle;
  positions: WritePositions;
  mcpSessions: McpSessionStore;
  close: () => void;
};

export async function connectSharedState(
  options: SharedRedisOptions & {
    rateLimit: RateLimitOptions;
    authFailures: AuthFailureOptions;
    mcpSessionIdleMs: number;
  },
): Promise<SharedState> {
  const shared = await connectSharedRedis(options);
  const mcpSessions = createSharedMcpSessionStore(shared, { idleMs: options.mcpSessionIdleMs });
  return {
    shared,
    rateLimiter: createSharedRateLimiter(shared, options.rateLimit),
    authFailureThrottle: createSharedAuthFailureThrottle(shared, options.authFailures),
    positions: createSharedWritePositions(shared),
    mcpSessions,
    close: () => {
      mcpSessions.close();
      shared.close();
    },
  };
}
