// `pnpm cairn keys create|list|revoke`: manages the gateway's API keys directly in Postgres
// (CAIRN_DATABASE_URL). A created key is printed once; only its hash is stored.
import { parseArgs } from "node:util";
import { type ApiKeyRecord, isCairnError, roles } from "@cairn/contracts";
import { createApiKey, listApiKeys, openKeyDatabase, revokeApiKey } from "@cairn/gateway";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";

export const summary = "create, list and revoke API keys (tenant, agent, role)";

const usage = `usage:
  pnpm cairn keys create --tenant <tenant> --agent <agent> [--role agent|reviewer|admin] [--primary]
                         [--label <text>] [--key <key>] [--json]
  pnpm cairn keys list [--tenant <tenant>] [--all] [--json]
  pnpm cairn keys revoke <key id or listed prefix> [--tenant <tenant>]

Keys map to a principal: tenant (a team), agent id, role (agent; reviewer, who may promote and
reject proposals; admin) and --primary (sees every agent's private memories in its tenant).
A created key is shown once; --key sets it instead of generating one (at least 24 characters).
Reads and writes CAIRN_DATABASE_URL.`;

function row(r: ApiKeyRecord): string {
  const flags = [r.role, r.primary ? "primary" : "", r.revokedAt ? `revoked ${r.revokedAt}` : ""].filter(
    Boolean,
  );
  return `${r.id}  ${r.keyPrefix}…  ${r.tenant}/${r.agent}  ${flags.join(", ")}${r.label ? `  "${r.label}"` : ""}`;
}

export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === "--help" || sub === "-h" || rest.includes("--help")) {
    console.log(usage);
    return sub ? 0 : 2;
  }
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(rest);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const env = parseEnv(baseEnvSchema);
  const pool = openKeyDatabase(env.CAIRN_DATABASE_URL);
  try {
    switch (sub) {
      case "create": {
        if (!values.tenant || !values.agent) {
          console.error(`--tenant and --agent are required\n\n${usage}`);
          return 2;
        }
        const role = values.role ?? "agent";
        if (!(roles as readonly string[]).includes(role)) {
          console.error(`--role must be one of ${roles.join(", ")}`);
          return 2;
        }
        const created = await createApiKey(
          pool,
          {
            tenant: values.tenant,
            agent: values.agent,
            role: role as (typeof roles)[number],
            primary: values.primary ?? false,
            label: values.label ?? null,
          },
          ...(values.key ? [values.key] : []),
        );
        if (values.json) console.log(JSON.stringify(created));
        else {
          console.log(
            `created ${row(created.record)}\n\n  ${created.key}\n\nThe key is shown only now; keep it.`,
          );
        }
        return 0;
      }
      case "list": {
        const keys = await listApiKeys(pool, { tenant: values.tenant, includeRevoked: values.all ?? false });
        if (values.json) console.log(JSON.stringify(keys));
        else console.log(keys.length ? keys.map(row).join("\n") : "no keys");
        return 0;
      }
      case "revoke": {
        const target = positionals[0];
        if (!target) {
          console.error(`which key? give its id or listed prefix\n\n${usage}`);
          return 2;
        }
        const record = await revokeApiKey(pool, target, { tenant: values.tenant });
        console.log(values.json ? JSON.stringify(record) : `revoked ${row(record)}`);
        return 0;
      }
      default:
        console.error(`unknown subcommand ${sub}\n\n${usage}`);
        return 2;
    }
  } catch (error) {
    if (isCairnError(error)) {
      console.error(`${error.code}: ${error.message}${error.hint ? ` (${error.hint})` : ""}`);
      return 1;
    }
    if (error instanceof Error && error.name === "ZodError") {
      console.error(`invalid key settings: ${error.message}`);
      return 2;
    }
    throw error;
  } finally {
    await pool.end();
  }
}

function parseOptions(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      tenant: { type: "string" },
      agent: { type: "string" },
      role: { type: "string" },
      primary: { type: "boolean" },
      label: { type: "string" },
      key: { type: "string" },
      all: { type: "boolean" },
      json: { type: "boolean" },
    },
  });
}
