import { projectionRuntimeEnv } from "@cairn/projection-runtime";
import { baseEnvSchema } from "@cairn/service-runtime";
import { z } from "zod";

const number = (fallback: number) => z.coerce.number().positive().default(fallback);

/** The ranking service's settings; tenant-level weights are tenant settings, not these. */
export const rankingEnvSchema = baseEnvSchema.extend({
  /** Every Redis key of the ranking read models starts with this (tests give each run its own). */
  CAIRN_RANKING_REDIS_PREFIX: z.string().default("cairn:ranking:"),
  /** Durable consumer names are `<prefix>-<projection>`. */
  CAIRN_RANKING_CONSUMER_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default("ranking"),
  /** How long a request with `afterPosition` waits for the projections before answering `timeout`. */
  CAIRN_RANKING_WAIT_MS: number(10_000),
  /** Co-occurring entities added per query entity, and the co-occurrence count they need. */
  CAIRN_RANKING_EXPANSION_ENTITIES: z.coerce.number().int().min(0).max(20).default(3),
  CAIRN_RANKING_EXPANSION_MIN_COOCCURRENCE: z.coerce.number().int().min(1).default(2),
  /** A key (or entity) linked to at least max(min, fraction × live memories) memories is a hub. */
  CAIRN_RANKING_HUB_MIN_LINKS: z.coerce.number().int().min(1).default(25),
  CAIRN_RANKING_HUB_FRACTION: z.coerce.number().min(0).max(1).default(0.1),
  /** Trigram similarity above which a new concept key becomes an alias of an existing one. */
  CAIRN_RANKING_KEY_MERGE_SIMILARITY: z.coerce.number().min(0).max(1).default(0.8),
  CAIRN_RANKING_HOT_HALF_LIFE_DAYS: number(7),
  CAIRN_RANKING_DEPTH_HALF_LIFE_DAYS: number(90),
  ...projectionRuntimeEnv("RANKING"),
});
export type RankingEnv = z.infer<typeof rankingEnvSchema>;
