import type { ServiceName } from "@cairn/contracts";
import { z } from "zod";
import { ConfigFileError, resolveSettings, type SettingSource } from "./config-file.ts";

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

export type ParseEnvOptions = {
  /** Whose section of the configuration file applies (none: only its top-level settings). */
  service?: ServiceName | undefined;
};

/** The setting names a schema declares (an object schema's keys). */
export function settingNamesOf(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * Reads a service's settings once at start: the environment over the configuration file
 * (`CAIRN_CONFIG`, see config-file.ts) over the schema's defaults, validated by the schema. A
 * bad setting stops the service with a message naming where it was given (the file and its
 * key, or the environment variable) and what is wrong.
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  options: ParseEnvOptions = {},
): z.infer<S> {
  return parseSettings(schema, env, options).config;
}

export type ParsedSettings<T> = {
  config: T;
  /** The values as given (environment strings), before the schema read them. */
  given: Record<string, string | undefined>;
  /** Where each setting of the schema came from. */
  sources: Record<string, SettingSource>;
  /** The configuration file read, if any. */
  file: string | undefined;
};

/** `parseEnv`, with where each setting came from (for `pnpm cairn config`). */
export function parseSettings<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  options: ParseEnvOptions = {},
): ParsedSettings<z.infer<S>> {
  const { values, fromFile, file } = resolveSettings(env, options.service);
  const names = settingNamesOf(schema);
  const section = options.service ? file?.sections[options.service] : undefined;
  if (file && section && names.length > 0) {
    for (const key of Object.keys(section)) {
      if (!names.includes(key)) {
        throw new ConfigFileError(
          file.path,
          `[${options.service}] ${key}`,
          `is not a setting of ${options.service}`,
        );
      }
    }
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.join(".");
      const inFile = fromFile.get(key);
      const where = file && inFile !== undefined ? `${file.path}: ${inFile}${key}` : key;
      return `  ${where}: ${issue.message}`;
    });
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  const sources: Record<string, SettingSource> = {};
  for (const name of names) {
    sources[name] = fromFile.has(name) ? "file" : values[name] !== undefined ? "env" : "default";
  }
  return { config: parsed.data, given: values, sources, file: file?.path };
}
