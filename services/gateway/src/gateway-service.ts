// The gateway service definition (main.ts runs it; tests start it in-process).
import type { ServiceDefinition } from "@cairn/service-runtime";
import pg from "pg";
import { createAuthenticator } from "./auth/authenticator.ts";
import { bootstrapAdminKey } from "./auth/bootstrap-admin-key.ts";
import { createHostPolicy, createOriginPolicy } from "./auth/origin-policy.ts";
import { gatewayEnvSchema } from "./env.ts";
import { createHttpServer } from "./http-server.ts";
import { connectSharedState } from "./shared-state/connect-shared-state.ts";

/** Called with the address once the gateway listens (tests start it on port 0). */
export type GatewayServiceOptions = { onListening?: (address: string) => void };

export function createGatewayService(
  options: GatewayServiceOptions = {},
): ServiceDefinition<typeof gatewayEnvSchema> {
  return {
    name: "gateway",
    envSchema: gatewayEnvSchema,
    async start({ env, nc, logger, metrics }) {
      // A connection that cannot be made in time fails the query (503) instead of holding it.
      const pool = new pg.Pool({
        connectionString: env.CAIRN_DATABASE_URL,
        max: 10,
        connectionTimeoutMillis: 5000,
      });
      // Connection errors surface on the queries that meet them (as 503); a client that errors
      // while idle, checked out or ending must not crash the gateway.
      const onPostgresError = (err: Error) => logger.warn({ err }, "postgres connection error");
      pool.on("error", onPostgresError);
      pool.on("connect", (client) => client.on("error", onPostgresError));
      // What the gateway's copies share (sessions, limits, write positions); while Redis is
      // away each copy counts on its own and keeps serving (shared-state/shared-redis.ts).
      const state = await connectSharedState({
        url: env.CAIRN_REDIS_URL,
        prefix: env.CAIRN_GATEWAY_REDIS_PREFIX,
        logger,
        rateLimit: { perMinute: env.CAIRN_RATE_LIMIT_PER_MINUTE, burst: env.CAIRN_RATE_LIMIT_BURST },
        authFailures: { limit: env.CAIRN_AUTH_FAILURE_LIMIT, windowMs: env.CAIRN_AUTH_FAILURE_WINDOW_MS },
        mcpSessionIdleMs: env.CAIRN_MCP_SESSION_IDLE_MS,
      });
      const checks = {
        postgres: async () => void (await pool.query("select 1")),
        redis: async () => void (await state.shared.redis.ping()),
      };
      if (env.CAIRN_MODE === "local") {
        // Without the api_keys table (migrations not applied yet) the gateway still starts:
        // /healthz and /readyz work, and authenticated requests answer 503 until it exists.
        await bootstrapAdminKey(pool, logger, {
          adminKey: env.CAIRN_ADMIN_KEY,
          tenant: env.CAIRN_DEFAULT_TENANT,
          print: (text) => process.stdout.write(`${text}\n`),
        }).catch((error: unknown) => {
          if ((error as { code?: string }).code !== "42P01") throw error;
          logger.warn("no api_keys table: apply the migrations (pnpm cairn migrate); no admin key created");
        });
      }
      const app = await createHttpServer({
        nc,
        logger,
        checks,
        pool,
        authenticator: createAuthenticator(pool, {
          cacheMs: env.CAIRN_KEY_CACHE_MS,
          staleMs: env.CAIRN_KEY_STALE_MS,
          logger,
        }),
        rateLimiter: state.rateLimiter,
        originPolicy: createOriginPolicy(env.CAIRN_ALLOWED_ORIGINS),
        hostPolicy: createHostPolicy(env.CAIRN_ALLOWED_HOSTS, env.CAIRN_ALLOWED_ORIGINS),
        authFailureThrottle: state.authFailureThrottle,
        trustProxy: env.CAIRN_TRUST_PROXY,
        bodyLimitBytes: env.CAIRN_BODY_LIMIT_BYTES,
        importLimits: {
          maxBytes: env.CAIRN_IMPORT_LIMIT_BYTES,
          maxUnpackedBytes: env.CAIRN_IMPORT_UNPACKED_LIMIT_BYTES,
          maxFiles: env.CAIRN_IMPORT_MAX_FILES,
        },
        backendTimeoutMs: env.CAIRN_BACKEND_TIMEOUT_MS,
        rerankCandidates: env.CAIRN_RERANK_CANDIDATES,
        recallBatchMs: env.CAIRN_RECALL_BATCH_MS,
        mcpSessionIdleMs: env.CAIRN_MCP_SESSION_IDLE_MS,
        mcpSessions: state.mcpSessions,
        positions: state.positions,
        version: process.env.CAIRN_VERSION ?? "0.1.0",
        // The gateway serves its metrics on its own port, next to the API (unless turned off).
        metrics: env.CAIRN_METRICS_PORT === "off" ? undefined : metrics,
      });
      const address = await app.listen({ host: env.CAIRN_HOST, port: env.CAIRN_PORT });
      logger.info({ address, mode: env.CAIRN_MODE }, "gateway listening");
      options.onListening?.(address);
      return {
        checks,
        stop: async () => {
          await app.close();
          state.close();
          await pool.end();
        },
      };
    },
  };
}
