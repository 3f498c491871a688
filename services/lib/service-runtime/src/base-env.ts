import { z } from "zod";

/** Settings every service reads; defaults match `infra/local/infra.sh`. */
export const baseEnvSchema = z.object({
  CAIRN_NATS_URL: z.string().default("nats://127.0.0.1:54222"),
  /** The service's bus identity and its nkey seed (or a file holding it); unset: no credentials. */
  CAIRN_NATS_USER: z.string().optional(),
  CAIRN_NATS_NKEY_SEED: z.string().optional(),
  CAIRN_NATS_NKEY_SEED_FILE: z.string().optional(),
  CAIRN_DATABASE_URL: z.string().default("postgres://postgres@127.0.0.1:55432/cairn"),
  CAIRN_REDIS_URL: z.string().default("redis://127.0.0.1:56379"),
  CAIRN_LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("info"),
  CAIRN_INSTANCE: z.string().optional(),
  /**
   * Where `/metrics` is served: a port, `0` for any free port, or `off`. Unset: the
   * service's default (ingest 9464, search 9465, ranking 9466, maintenance 9467); the
   * gateway serves `/metrics` on its own HTTP port.
   */
  CAIRN_METRICS_PORT: z.union([z.literal("off"), z.coerce.number().int().min(0).max(65535)]).optional(),
});
export type BaseEnv = z.infer<typeof baseEnvSchema>;

/** Parses the environment once at start; a bad setting stops the service with a clear message. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}
