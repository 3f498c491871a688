// `pnpm cairn import --from <format> <file or folder> [--apply]`: memories from Cairn's own
// export, mem0, the MCP reference memory server, a Markdown vault (KeepM, Obsidian) or keymem,
// written through ingest (so admission rules apply: secrets refused, duplicates reported with
// the memory that holds them). A dry run unless --apply: it reads the source and says what it
// would write. Importing the same file twice adds nothing.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { parseArgs } from "node:util";
import { call, connectBus } from "@cairn/bus";
import {
  type CommandName,
  commandRpc,
  isCairnError,
  type RpcDefinition,
  type Scope,
  scopes,
} from "@cairn/contracts";
import {
  applyImport,
  formatImportSummary,
  type ImportFormat,
  type ImportPlan,
  type ImportSource,
  importFormatDescriptions,
  importFormats,
  importSourceOf,
  importSummary,
  planImport,
} from "@cairn/portability";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";
import { createProgressBar } from "../lib/progress-bar.ts";

export const summary = "import memories from Cairn, mem0, server-memory, a Markdown vault or keymem";

const usage = `usage: pnpm cairn import --from ${importFormats.join("|")} <file or folder>
                         [--tenant <tenant>] [--agent <agent>] [--scope team|agent|global]
                         [--project <project>] [--apply] [--json]

  --from     ${importFormats.map((f) => `${f}: ${importFormatDescriptions[f]}`).join("\n             ")}
             (a vault is a folder, a .zip, a .tar or a .tar.gz of one, or a single .md file)
  --tenant   the tenant to import into (default: CAIRN_DEFAULT_TENANT, or "local")
  --agent    the agent the memories are written as (default: import)
  --scope    scope of records whose source names none (default: team)
  --project  project of every imported memory
  --apply    write them (without it: a dry run that reads the source and reports)
  --json     print the summary as JSON

Every record goes through ingest: a secret is refused and reported, a content already stored is
skipped and reported with the memory that holds it. Each write carries an idempotency key made
from the record and the agent, so importing the same records twice adds nothing (they count as
"already imported").
--apply needs the services running (CAIRN_NATS_URL). Progress goes to stderr: a bar on a
terminal, a line every 2 s otherwise.`;

/** An archive of a vault holds no more than this, unpacked. */
const archiveLimits = { maxUnpackedBytes: 1024 * 1024 * 1024, maxFiles: 200_000 };

function fail(message: string): number {
  console.error(`${message}\n\n${usage}`);
  return 2;
}

/** Every file under a folder (hidden ones aside), with its path relative to the folder. */
function vaultFiles(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      // Other files are listed (the vault's reader reports them as skipped), not read.
      else
        out.push({
          path: relative(dir, path),
          text: entry.name.endsWith(".md") ? readFileSync(path, "utf8") : "",
        });
    }
  };
  walk(dir);
  return out;
}

/** The source as the importers read it: a folder's files, an archive's, or a file's text. */
function sourceOf(format: ImportFormat, path: string): ImportSource {
  if (statSync(path).isDirectory()) {
    if (format !== "markdown") throw new Error(`--from ${format} reads a file; ${path} is a folder`);
    return { files: vaultFiles(path) };
  }
  return importSourceOf(format, readFileSync(path), archiveLimits);
}

export function planOf(
  format: ImportFormat,
  path: string,
  options: { scope?: Scope; project?: string },
): ImportPlan {
  return planImport(format, sourceOf(format, path), { ...options, sourceName: basename(path) });
}

export async function run(args: string[]): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{
      options: Record<string, { type: "string" | "boolean"; short?: string }>;
      allowPositionals: true;
    }>
  >;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        from: { type: "string" },
        tenant: { type: "string" },
        agent: { type: "string" },
        scope: { type: "string" },
        project: { type: "string" },
        apply: { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const format = values.from as ImportFormat | undefined;
  if (!format || !(importFormats as readonly string[]).includes(format))
    return fail(`--from is one of ${importFormats.join(", ")}`);
  const path = parsed.positionals[0];
  if (!path) return fail("give the file or folder to import");
  const scope = values.scope as Scope | undefined;
  if (scope !== undefined && !(scopes as readonly string[]).includes(scope))
    return fail(`--scope is one of ${scopes.join(", ")}`);
  let plan: ImportPlan;
  try {
    plan = planOf(format, path, {
      ...(scope ? { scope } : {}),
      ...(values.project ? { project: values.project as string } : {}),
    });
  } catch (error) {
    const hint = isCairnError(error) && error.hint ? `\n${error.hint}` : "";
    console.error(`cannot read ${path}: ${(error as Error).message}${hint}`);
    return 1;
  }
  if (!values.apply) {
    const dry = importSummary(plan, null);
    console.log(values.json ? JSON.stringify(dry) : formatImportSummary(dry));
    return 0;
  }
  const env = parseEnv(baseEnvSchema);
  const tenant = (values.tenant as string | undefined) ?? process.env.CAIRN_DEFAULT_TENANT ?? "local";
  const principal = {
    tenant,
    agent: (values.agent as string | undefined) ?? "import",
    role: "admin" as const,
    primary: true,
  };
  const nc = await connectBus({ url: env.CAIRN_NATS_URL, name: "cairn-import" });
  try {
    const send = (command: string, payload: Record<string, unknown>) =>
      call(
        nc,
        commandRpc(command as CommandName) as RpcDefinition,
        { principal, ...payload },
        { timeoutMs: 30_000 },
      ) as ReturnType<Parameters<typeof applyImport>[1]>;
    const bar = createProgressBar("import");
    let outcome: Awaited<ReturnType<typeof applyImport>>;
    try {
      outcome = await applyImport(plan, send, {
        onProgress: (done, total) => bar.update(done, total),
        actor: JSON.stringify(principal),
      });
    } finally {
      bar.stop();
    }
    const applied = importSummary(plan, outcome);
    console.log(values.json ? JSON.stringify(applied) : formatImportSummary(applied));
    return outcome.refused.length > 0 ? 1 : 0;
  } finally {
    await nc.close();
  }
}
