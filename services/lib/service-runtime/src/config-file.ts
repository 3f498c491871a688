// The configuration file (`CAIRN_CONFIG`): every service setting, in JSON or TOML, under the
// same names as the environment variables. Keys at the top apply to every service that has the
// setting; a section named after a service (`[gateway]`, `[maintenance]`, …) applies to that
// service only. Precedence: the environment, then the service's section, then the top, then
// the schema's default. The file is read and checked here; the values are then validated by
// each service's own schema (`parseEnv`), so a setting means the same wherever it is given.
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { type ServiceName, serviceNames } from "@cairn/contracts";
import { parse as parseToml, TomlError } from "smol-toml";

/** Where a setting's value came from. */
export type SettingSource = "env" | "file" | "default";

export type ConfigFile = {
  path: string;
  /** Top-level settings, as environment strings. */
  shared: Record<string, string>;
  /** Each service's section, as environment strings. */
  sections: Partial<Record<ServiceName, Record<string, string>>>;
};

/** A configuration file that cannot be used: names the file, the key and what is wrong. */
export class ConfigFileError extends Error {
  readonly path: string;
  readonly key: string | undefined;
  constructor(path: string, key: string | undefined, problem: string, options?: { cause?: unknown }) {
    super(`invalid configuration file ${path}${key ? `: ${key}` : ""}: ${problem}`, options);
    this.name = "ConfigFileError";
    this.path = path;
    this.key = key;
  }
}

/** A setting's name: what the environment variable is called. */
const settingName = /^CAIRN_[A-Z0-9_]+$/;

/** A file value as the environment would hold it: lists comma-separated, the rest as text. */
function asEnvString(path: string, key: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number"))
    return value.map(String).join(",");
  throw new ConfigFileError(path, key, "must be a string, a number, a boolean or a list of strings");
}

function readSettings(path: string, where: string, table: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(table)) {
    const at = where ? `[${where}] ${key}` : key;
    if (!settingName.test(key)) {
      throw new ConfigFileError(
        path,
        at,
        "is not a setting: settings are named as their environment variables (CAIRN_…; OpenTelemetry's OTEL_… stay in the environment)",
      );
    }
    if (key === "CAIRN_CONFIG")
      throw new ConfigFileError(path, at, "names the file itself; set it in the environment");
    out[key] = asEnvString(path, at, value);
  }
  return out;
}

function parseFile(path: string, text: string): unknown {
  const ext = extname(path).toLowerCase();
  if (ext === ".toml") {
    try {
      return parseToml(text);
    } catch (error) {
      const where = error instanceof TomlError ? ` (line ${error.line}, column ${error.column})` : "";
      const first = (error as Error).message.split("\n", 1)[0];
      throw new ConfigFileError(path, undefined, `not valid TOML${where}: ${first}`, { cause: error });
    }
  }
  if (ext === ".json") {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new ConfigFileError(path, undefined, `not valid JSON: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  throw new ConfigFileError(path, undefined, "name it .toml or .json, so it is read in the right format");
}

/** Reads and checks `path`; a missing file, bad syntax or a key that is not a setting is an error. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigFileError(
      path,
      undefined,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      {
        cause: error,
      },
    );
  }
  const parsed = parseFile(path, text);
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigFileError(path, undefined, "must hold a table (TOML) or an object (JSON) of settings");
  }
  const top: Record<string, unknown> = {};
  const sections: ConfigFile["sections"] = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      if (!(serviceNames as readonly string[]).includes(key)) {
        throw new ConfigFileError(
          path,
          `[${key}]`,
          `is not a service; sections are ${serviceNames.join(", ")}`,
        );
      }
      sections[key as ServiceName] = readSettings(path, key, value as Record<string, unknown>);
    } else {
      top[key] = value;
    }
  }
  return { path, shared: readSettings(path, "", top), sections };
}

/**
 * The settings a service starts with: the file's (when `env.CAIRN_CONFIG` names one) under the
 * environment's, and where each came from. An empty environment variable does not hide the
 * file's value (compose passes `${X:-}` for what it leaves to other sources); without one in
 * the file it is given to the schema, which decides what empty means.
 */
export function resolveSettings(
  env: NodeJS.ProcessEnv,
  service: ServiceName | undefined,
): {
  values: Record<string, string | undefined>;
  fromFile: Map<string, string>;
  file: ConfigFile | undefined;
} {
  const path = env.CAIRN_CONFIG;
  const file = path ? readConfigFile(path) : undefined;
  const fromFile = new Map<string, string>();
  if (file) {
    for (const key of Object.keys(file.shared)) fromFile.set(key, "");
    for (const key of Object.keys((service && file.sections[service]) ?? {}))
      fromFile.set(key, `[${service}] `);
  }
  const fileValues = file ? { ...file.shared, ...((service && file.sections[service]) ?? {}) } : {};
  const values: Record<string, string | undefined> = { ...fileValues };
  for (const [key, value] of Object.entries(env)) {
    if (value === "" && key in fileValues) continue;
    if (value !== undefined) {
      values[key] = value;
      fromFile.delete(key);
    }
  }
  return { values, fromFile, file };
}
