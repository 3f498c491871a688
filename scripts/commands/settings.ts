// `pnpm cairn settings get|set`: a tenant's settings (ranking weights, retrieval, skip patterns,
// synonyms, the workflow lock, maintenance schedules, the secret allow-list) as the operator.
// `get` folds the tenant's stream from the log (CAIRN_DATABASE_URL) as the gateway does; `set`
// sends the ingest command `tenant.change_settings` on the bus (CAIRN_NATS_URL), so the change
// is validated, recorded as an event and applied by every service like any other.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { call, connectBus } from "@cairn/bus";
import {
  commandRpc,
  defaultTenantSettings,
  ingestCommandSchemas,
  isCairnError,
  streamIdFor,
} from "@cairn/contracts";
import { createDatabasePool, readStream } from "@cairn/event-store";
import { foldTenantSettings } from "@cairn/memory-model";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";

export const summary = "read or change a tenant's settings (ranking, retrieval, locks, schedules)";

const usage = `usage:
  pnpm cairn settings get [--tenant <tenant>] [--json]
  pnpm cairn settings set [--tenant <tenant>] [--version <n>] [--agent <agent>] '<json>' | --file <file.json>

  get        the settings as last changed, their version, when and by whom, and every value in force
             (defaults for what was never set)
  set        change some: a JSON object of the fields to change (rankingWeights, retrieval,
             skipPatterns, synonyms, workflowLock, maintenance, secretAllowList); each replaces
             that setting as a whole, the others stay
  --tenant   default: CAIRN_DEFAULT_TENANT, or "local"
  --version  the version read with get: a change made since is refused (version_conflict)
  --agent    who the change is recorded for (default: cli)

Example: pnpm cairn settings set --version 3 '{"workflowLock":{"reason":"release freeze","expiresAt":"2026-12-01T00:00:00Z"}}'`;

const SettingsChangeSchema = ingestCommandSchemas["tenant.change_settings"].shape.settings;

function fail(message: string): number {
  console.error(`${message}\n\n${usage}`);
  return 2;
}

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === "--help" || sub === "-h" || rest.includes("--help")) {
    console.log(usage);
    return sub ? 0 : 2;
  }
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        tenant: { type: "string" },
        version: { type: "string" },
        agent: { type: "string" },
        file: { type: "string" },
        json: { type: "boolean" },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  const tenant = (values.tenant as string | undefined) ?? process.env.CAIRN_DEFAULT_TENANT ?? "local";
  const env = parseEnv(baseEnvSchema);
  if (sub === "get") return get(env.CAIRN_DATABASE_URL, tenant, values.json === true);
  if (sub !== "set") return fail(`unknown subcommand: ${sub}`);

  let text: string | undefined;
  try {
    text = values.file ? readFileSync(values.file as string, "utf8") : positionals[0];
  } catch (error) {
    console.error(`cannot read ${values.file}: ${(error as Error).message}`);
    return 1;
  }
  if (text === undefined) return fail("give the settings to change as JSON, or --file");
  let change: unknown;
  try {
    change = JSON.parse(text);
  } catch (error) {
    return fail(`the settings are not JSON: ${(error as Error).message}`);
  }
  const checked = SettingsChangeSchema.safeParse(change);
  if (!checked.success) {
    for (const issue of checked.error.issues)
      console.error(`  ${issue.path.join(".") || "settings"}: ${issue.message}`);
    return 1;
  }
  const version = values.version === undefined ? undefined : Number(values.version);
  if (version !== undefined && (!Number.isSafeInteger(version) || version < 0))
    return fail("--version is the settings' version, a whole number (0 before any change)");
  const principal = {
    tenant,
    agent: (values.agent as string | undefined) ?? "cli",
    role: "admin" as const,
    primary: true,
  };
  const nc = await connectBus({ url: env.CAIRN_NATS_URL, name: "cairn-settings" });
  try {
    const result = await call(
      nc,
      commandRpc("tenant.change_settings"),
      { principal, settings: checked.data, ...(version === undefined ? {} : { expectedVersion: version }) },
      { timeoutMs: 30_000 },
    );
    const written = result as { version: number; position: number };
    console.log(
      `changed the settings of ${tenant}: version ${written.version} (log position ${written.position})`,
    );
    return 0;
  } catch (error) {
    if (!isCairnError(error)) throw error;
    console.error(`${error.code}: ${error.message}${error.hint ? `\n${error.hint}` : ""}`);
    if (error.code === "version_conflict")
      console.error("read them again with `pnpm cairn settings get` and reapply");
    return 1;
  } finally {
    await nc.close();
  }
}

async function get(databaseUrl: string, tenant: string, json: boolean): Promise<number> {
  const pool = createDatabasePool({
    connectionString: databaseUrl,
    max: 1,
    applicationName: "cairn-settings",
  });
  try {
    const events = await readStream(pool, streamIdFor("tenant", tenant));
    const { settings, version } = foldTenantSettings(events);
    const last = events.at(-1);
    const effective = { ...defaultTenantSettings, ...settings };
    const answer = {
      tenant,
      version,
      changedAt: last?.meta.recordedAt ?? null,
      changedBy: last?.meta.actor ?? null,
      settings,
      effective,
    };
    if (json) {
      console.log(JSON.stringify(answer));
      return 0;
    }
    console.log(
      [
        `tenant ${tenant}, settings version ${version}` +
          (last ? ` (changed ${answer.changedAt} by ${answer.changedBy})` : " (never changed)"),
        "",
        "changed from the defaults:",
        JSON.stringify(settings, null, 2),
        "",
        "in force:",
        JSON.stringify(effective, null, 2),
      ].join("\n"),
    );
    return 0;
  } finally {
    await pool.end();
  }
}
