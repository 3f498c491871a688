import { retrieverNames } from "@cairn/contracts";
import {
  type ProjectionRuntimeSettings,
  projectionRuntimeEnv,
  projectionSettingsFromEnv,
} from "@cairn/projection-runtime";
import { baseEnvSchema } from "@cairn/service-runtime";
import { z } from "zod";
import { defaultCommonTermShare } from "./queries/lexical-query.ts";

const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);

/** The search service's settings; every one has a default that works locally. */
export const searchEnvSchema = baseEnvSchema.extend({
  /** Prefix of every Redis key the search service writes. */
  CAIRN_REDIS_PREFIX: z.string().default("cairn:"),
  /** Role the Postgres connections switch to (empty: the login user's rights). */
  CAIRN_SEARCH_DATABASE_ROLE: z.string().default(""),
  /** `local`: offline hashed n-gram features; `openai`: any OpenAI-compatible /v1/embeddings endpoint. */
  CAIRN_EMBEDDER: z.enum(["local", "openai"]).default("local"),
  /** local: the vector size (default 384); openai: a shortened size to ask for (default: the model's). */
  CAIRN_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(8).max(16_000).optional(),
  CAIRN_EMBEDDING_URL: z.url().default("https://api.openai.com/v1"),
  CAIRN_EMBEDDING_MODEL: z.string().min(1).default("text-embedding-3-small"),
  CAIRN_EMBEDDING_API_KEY: z.string().optional(),
  CAIRN_EMBEDDING_BATCH_SIZE: int(64, 1),
  CAIRN_EMBEDDING_TIMEOUT_MS: int(30_000, 100),
  CAIRN_EMBEDDING_MAX_RETRIES: int(5),
  /** Which projections this copy runs (all copies answer queries): `lexical,vector`, or `none`. */
  CAIRN_SEARCH_PROJECTIONS: z
    .string()
    .default("lexical,vector")
    .transform((v, ctx) => {
      const names =
        v === "none"
          ? []
          : v
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean);
      for (const n of names) {
        if (!(retrieverNames as readonly string[]).includes(n)) {
          ctx.addIssue({
            code: "custom",
            message: `unknown projection ${n}; use ${retrieverNames.join(", ")} or none`,
          });
        }
      }
      return names as (typeof retrieverNames)[number][];
    }),
  /** Durable consumer names are `<prefix>-lexical` and `<prefix>-vector`. */
  CAIRN_SEARCH_CONSUMER_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default("search"),
  ...projectionRuntimeEnv("SEARCH"),
  /** Longest read-your-writes wait when a request does not say. */
  CAIRN_SEARCH_WAIT_TIMEOUT_MS: int(5000),
  /**
   * How many lexical matches are scored with exact BM25 per query (RediSearch's own order only
   * picks them; more is better recall on large tenants and more work per query).
   */
  CAIRN_SEARCH_LEXICAL_POOL: int(1000),
  /**
   * A query term more than this share of a tenant's live memories hold is left out of what
   * RediSearch matches while a rarer term of the query remains (BM25 still counts it); 1 keeps
   * every term.
   */
  CAIRN_SEARCH_COMMON_TERM_SHARE: z.coerce.number().gt(0).max(1).default(defaultCommonTermShare),
  /**
   * How long a search or a context waits for ranking's re-rank of its candidates (no ranking
   * service at all answers in search order at once).
   */
  CAIRN_SEARCH_RERANK_TIMEOUT_MS: int(5000, 100),
});
export type SearchEnv = z.infer<typeof searchEnvSchema>;

export function projectionSettingsOf(env: SearchEnv): ProjectionRuntimeSettings {
  return projectionSettingsFromEnv(env, "SEARCH");
}
