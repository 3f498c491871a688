// Starts the gateway in-process for tests: a fresh database (migrated), real NATS, the API
// keys of a small team, and the HTTP server on a free port.
import { connectBus } from "@cairn/bus";
import type { Principal } from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import { createLogger } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { createApiKey } from "../auth/api-key-store.ts";
import { createAuthFailureThrottle } from "../auth/auth-failure-throttle.ts";
import { createAuthenticator } from "../auth/authenticator.ts";
import { createHostPolicy, createOriginPolicy } from "../auth/origin-policy.ts";
import { createRateLimiter } from "../auth/rate-limiter.ts";
import { createHttpServer } from "../http-server.ts";
import type { ImportLimits } from "../rest/routes/import.ts";
import { connectSharedState } from "../shared-state/connect-shared-state.ts";

export const teamKeys = {
  alice: { tenant: "acme", agent: "alice", role: "agent", primary: false },
  bob: { tenant: "acme", agent: "bob", role: "agent", primary: false },
  lead: { tenant: "acme", agent: "lead", role: "agent", primary: true },
  reviewer: { tenant: "acme", agent: "rita", role: "reviewer", primary: false },
  admin: { tenant: "acme", agent: "admin", role: "admin", primary: true },
  outsider: { tenant: "globex", agent: "olga", role: "agent", primary: true },
} as const satisfies Record<string, Principal>;

export type KeyName = keyof typeof teamKeys;

export type GatewayHarness = {
  app: FastifyInstance;
  baseUrl: string;
  keys: Record<KeyName, string>;
  keyIds: Record<KeyName, string>;
  pool: pg.Pool;
  nc: NatsConnection;
  close: () => Promise<void>;
};

export type HarnessOptions = {
  databaseUrl: string;
  natsUrl: string;
  rateLimit?: { perMinute: number; burst: number };
  bodyLimitBytes?: number;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  /** Wrong keys per client address and window before 429 (default: not throttled). */
  authFailures?: { limit: number; windowMs: number };
  backendTimeoutMs?: number;
  /** What `POST /v1/import` takes (default: the gateway's). */
  importLimits?: ImportLimits;
  /**
   * Keep MCP sessions, rate limits, failed-key counts and write positions in this Redis, as
   * the gateway service does (default: in the process's memory, as one copy alone would).
   */
  redisUrl?: string;
  /** Prefix of those keys (default `cairn:gateway:`): two harnesses with one prefix are two copies. */
  redisPrefix?: string;
  mcpSessionIdleMs?: number;
  /** How long a caller's recall records are gathered (default: the gateway's, 250 ms). */
  recallBatchMs?: number;
};

export async function startGatewayHarness(options: HarnessOptions): Promise<GatewayHarness> {
  await migrateToLatest(options.databaseUrl);
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 4 });
  // A server going away while a client is ending must not become an uncaught error.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const keys = {} as Record<KeyName, string>;
  const keyIds = {} as Record<KeyName, string>;
  for (const [name, p] of Object.entries(teamKeys) as [KeyName, Principal][]) {
    const created = await createApiKey(pool, { ...p, label: name });
    keys[name] = created.key;
    keyIds[name] = created.record.id;
  }
  const logger = createLogger("gateway", "silent");
  const nc = await connectBus({ url: options.natsUrl, name: "gateway-test" });
  const rateLimit = options.rateLimit ?? { perMinute: 60_000, burst: 10_000 };
  const mcpSessionIdleMs = options.mcpSessionIdleMs ?? 30 * 60_000;
  const state = options.redisUrl
    ? await connectSharedState({
        url: options.redisUrl,
        prefix: options.redisPrefix,
        logger,
        rateLimit,
        authFailures: options.authFailures ?? { limit: 0, windowMs: 1 },
        mcpSessionIdleMs,
      })
    : undefined;
  const app = await createHttpServer({
    nc,
    logger,
    checks: {},
    pool,
    authenticator: createAuthenticator(pool, { cacheMs: 1000 }),
    rateLimiter: state?.rateLimiter ?? createRateLimiter(rateLimit),
    originPolicy: createOriginPolicy(options.allowedOrigins ?? []),
    hostPolicy: createHostPolicy(options.allowedHosts ?? [], options.allowedOrigins ?? []),
    ...(options.authFailures
      ? { authFailureThrottle: state?.authFailureThrottle ?? createAuthFailureThrottle(options.authFailures) }
      : {}),
    bodyLimitBytes: options.bodyLimitBytes ?? 256 * 1024,
    backendTimeoutMs: options.backendTimeoutMs ?? 5000,
    ...(options.importLimits ? { importLimits: options.importLimits } : {}),
    mcpSessionIdleMs,
    ...(options.recallBatchMs === undefined ? {} : { recallBatchMs: options.recallBatchMs }),
    mcpSessions: state?.mcpSessions,
    positions: state?.positions,
  });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    app,
    baseUrl: address,
    keys,
    keyIds,
    pool,
    nc,
    close: async () => {
      await app.close();
      state?.close();
      await nc.close();
      await pool.end();
    },
  };
}
