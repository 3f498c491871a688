import { baseEnvSchema } from "@cairn/service-runtime";
import { z } from "zod";

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
  CAIRN_RATE_LIMIT_PER_MINUTE: z.coerce.number().positive().default(600),
  CAIRN_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(120),
  CAIRN_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** How long a looked-up API key is trusted before Postgres is asked again (revocation delay). */
  CAIRN_KEY_CACHE_MS: z.coerce.number().int().nonnegative().default(5000),
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
  CAIRN_RERANK_CANDIDATES: z.coerce.number().int().min(10).max(500).default(200),
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;
