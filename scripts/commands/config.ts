// `pnpm cairn config`: every setting of every service as it would start with this environment
// and configuration file (`CAIRN_CONFIG`), where each came from (env, file or default), secrets
// masked. Read and validated by each service's own schema, so what it prints is what the
// service gets; an error in the file is reported with the file, the key and what is wrong.
import { parseArgs } from "node:util";
import { type ServiceName, serviceNames } from "@cairn/contracts";
import { gatewayEnvSchema } from "@cairn/gateway";
import { ingestEnvSchema } from "@cairn/ingest";
import { maintenanceEnvSchema } from "@cairn/maintenance";
import { rankingEnvSchema } from "@cairn/ranking";
import { searchEnvSchema } from "@cairn/search";
import {
  maskSetting,
  parseSettings,
  readConfigFile,
  type SettingSource,
  settingNamesOf,
} from "@cairn/service-runtime";

export const summary = "print every service's effective settings and where each came from";

const usage = `usage: pnpm cairn config [--service ${serviceNames.join("|")}] [--json]

Every setting of each service (or of --service): its value as the service would start with it,
and its source: env (an environment variable), file (CAIRN_CONFIG, JSON or TOML) or default.
Precedence: environment, then the file's section for the service ([gateway], …), then the
file's top level, then the default. Secrets (keys, tokens, passwords, seeds, passwords in URLs)
are masked. Exits 1 when a setting is invalid or the file holds a key no service knows.`;

const schemas: Record<ServiceName, Parameters<typeof parseSettings>[0]> = {
  ingest: ingestEnvSchema,
  search: searchEnvSchema,
  ranking: rankingEnvSchema,
  maintenance: maintenanceEnvSchema,
  gateway: gatewayEnvSchema,
};

type Row = { name: string; value: string | null; source: SettingSource };

/** A default as the service holds it, shown as a setting would be written. */
function shown(value: unknown): string | null {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.join(",");
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function rowsOf(service: ServiceName): Row[] {
  const { config, given, sources } = parseSettings(schemas[service], process.env, { service });
  return settingNamesOf(schemas[service]).map((name) => {
    const source = sources[name] ?? "default";
    const raw =
      source === "default" ? shown((config as Record<string, unknown>)[name]) : (given[name] ?? null);
    return { name, value: raw === null ? null : maskSetting(name, raw), source };
  });
}

export async function run(args: string[]): Promise<number> {
  let values: { service?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        service: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (values.service !== undefined && !(serviceNames as readonly string[]).includes(values.service)) {
    console.error(`--service is one of ${serviceNames.join(", ")}\n\n${usage}`);
    return 2;
  }
  const services = values.service ? [values.service as ServiceName] : [...serviceNames];
  const path = process.env.CAIRN_CONFIG;
  const byService: Partial<Record<ServiceName, Row[]>> = {};
  // The same problem (a file that cannot be read, a shared setting) is reported once, with the
  // services it stops.
  const stopped = new Map<string, ServiceName[]>();
  for (const service of services) {
    try {
      byService[service] = rowsOf(service);
    } catch (error) {
      const message = (error as Error).message;
      stopped.set(message, [...(stopped.get(message) ?? []), service]);
    }
  }
  const errors = [...stopped].map(([message, which]) => `${which.join(", ")}: ${message}`);
  // A top-level key no service reads is a typo (each service only knows its own settings).
  if (path && errors.length === 0) {
    const known = new Set(serviceNames.flatMap((s) => settingNamesOf(schemas[s])));
    for (const key of Object.keys(readConfigFile(path).shared)) {
      if (!known.has(key))
        errors.push(`invalid configuration file ${path}: ${key}: no service has this setting`);
    }
  }
  if (values.json) {
    console.log(JSON.stringify({ file: path ?? null, services: byService, errors }));
  } else {
    const lines = [
      path ? `configuration file: ${path} (CAIRN_CONFIG)` : "no configuration file (CAIRN_CONFIG is not set)",
    ];
    for (const [service, rows] of Object.entries(byService)) {
      lines.push("", service);
      const width = Math.max(...rows.map((r) => r.name.length));
      for (const row of rows) {
        lines.push(
          `  ${row.name.padEnd(width)}  ${(row.value === "" ? "(empty)" : (row.value ?? "(unset)")).padEnd(40)}  ${row.source}`,
        );
      }
    }
    console.log(lines.join("\n"));
    for (const error of errors) console.error(error);
  }
  return errors.length > 0 ? 1 : 0;
}
