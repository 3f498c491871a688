import { baseEnvSchema } from "@cairn/service-runtime";
import { z } from "zod";
import { defaultRerankCandidates } from "./operations/operations-deps.ts";
import { defaultRecallBatchMs } from "./operations/recall-recorder.ts";

const list = z
  .string()
  .default("")
  .transform((s) =>
    s
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean),
  );

export const gatewayEnvSchema = baseEnvSchema.extend({
  /** Bound to loopback unless configured: the gateway is the only public surface. */
  CAIRN_HOST: z.string().default("127.0.0.1"),
  CAIRN_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /**
   * `local`: on first start, with no admin key yet, create one (CAIRN_ADMIN_KEY, or a
   * generated one printed once). `team`: keys only come from `pnpm cairn keys create`.
   */
  CAIRN_MODE: z.enum(["local", "team"]).default("local"),
  /** Empty counts as unset (compose passes `${CAIRN_ADMIN_KEY:-}`). */
  CAIRN_ADMIN_KEY: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(24).optional()),
  /** The tenant of the bootstrap admin key. */
  CAIRN_DEFAULT_TENANT: z.string().default("local"),
  /** Origins allowed on /mcp (comma-separated); empty: no Origin, or a loopback one. */
  CAIRN_ALLOWED_ORIGINS: list,
  /**
   * DNS names clients reach /mcp by (`host` or `host:port`, comma-separated; `*` for any),
   * besides loopback names, IP addresses and the hosts of CAIRN_ALLOWED_ORIGINS.
   */
  CAIRN_ALLOWED_HOSTS: list,
  /** Wrong API keys one client address may send per window before it gets 429 (0: no limit). */
  CAIRN_AUTH_FAILURE_LIMIT: z.coerce.number().int().nonnegative().default(20),
  CAIRN_AUTH_FAILURE_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Whose `X-Forwarded-For` names the client (for the throttle and the logs): `false` (the
   * socket's peer), `true` (any proxy), or the proxies' addresses or CIDRs (comma-separated).
   */
  CAIRN_TRUST_PROXY: z
    .string()
    .default("false")
    .transform((v): boolean | string => {
      const value = v.trim();
      if (value === "" || value === "false") return false;
      return value === "true" ? true : value;
    }),
  CAIRN_RATE_LIMIT_PER_MINUTE: z.coerce.number().positive().default(600),
  CAIRN_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(120),
  CAIRN_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** Largest file `POST /v1/import` takes (413 past it). */
  CAIRN_IMPORT_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /** What an imported archive (a vault's zip or tar, a gzipped file) may unpack to, and its most files. */
  CAIRN_IMPORT_UNPACKED_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
  CAIRN_IMPORT_MAX_FILES: z.coerce.number().int().positive().default(20_000),
  /** How long a looked-up API key is trusted before Postgres is asked again (revocation delay). */
  CAIRN_KEY_CACHE_MS: z.coerce.number().int().nonnegative().default(5000),
  /** How long after its last check a known key still works while Postgres cannot be reached. */
  CAIRN_KEY_STALE_MS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(60 * 60_000),
  /**
   * Prefix of the keys the gateway keeps in Redis (CAIRN_REDIS_URL): MCP sessions, rate
   * limits, failed-key counts and last write positions, shared by every gateway copy on it.
   */
  CAIRN_GATEWAY_REDIS_PREFIX: z.string().min(1).default("cairn:gateway:"),
  CAIRN_MCP_SESSION_IDLE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
  CAIRN_BACKEND_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * How many search candidates a ranked search or context re-ranks: deeper lists let the
   * signals and the re-scored relevance reach evidence the first retrieval ranked low.
   */
  CAIRN_RERANK_CANDIDATES: z.coerce.number().int().min(10).max(500).default(defaultRerankCandidates),
  /**
   * How long a caller's recall records are gathered before they go to ingest together (one
   * commit and one pass of each projection for all of them); 0 sends those of the same tick.
   */
  CAIRN_RECALL_BATCH_MS: z.coerce.number().int().min(0).max(5000).default(defaultRecallBatchMs),
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;
