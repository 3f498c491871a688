// `pnpm cairn import --from <format> <file or folder> [--apply]`: memories from Cairn's own
// export, mem0, the MCP reference memory server, a Markdown vault (KeepM, Obsidian) or keymem,
// written through ingest (so admission rules apply: secrets refused, duplicates reported with
// the memory that holds them). A dry run unless --apply: it reads the source and says what it
// would write. Importing the same file twice adds nothing.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { parseArgs } from "node:util";
import { call, connectBus } from "@cairn/bus";
import { type CommandName, commandRpc, type RpcDefinition, type Scope, scopes } from "@cairn/contracts";
import {
  applyImport,
  type ImportOutcome,
  type ImportPlan,
  importCairnExport,
  importKeymem,
  importMem0,
  importServerMemory,
  parseMarkdownVault,
} from "@cairn/portability";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";

export const summary = "import memories from Cairn, mem0, server-memory, a Markdown vault or keymem";

const formats = ["cairn", "mem0", "server-memory", "markdown", "keymem"] as const;
type Format = (typeof formats)[number];

const usage = `usage: pnpm cairn import --from ${formats.join("|")} <file or folder>
                         [--tenant <tenant>] [--agent <agent>] [--scope team|agent|global]
                         [--project <project>] [--apply] [--json]

  --from     cairn: a \`pnpm cairn export\` file (JSON Lines)
             mem0: mem0's export JSON (get_all)
             server-memory: the MCP reference memory server's memory.jsonl
             markdown: a folder of .md files (KeepM or Obsidian vault: front matter, body, [[links]])
             keymem: keymem's graph.json (keys become Cairn keys)
  --tenant   the tenant to import into (default: CAIRN_DEFAULT_TENANT, or "local")
  --agent    the agent the memories are written as (default: import)
  --scope    scope of records whose source names none (default: team)
  --project  project of every imported memory
  --apply    write them (without it: a dry run that reads the source and reports)
  --json     print the summary as JSON

Every record goes through ingest: a secret is refused and reported, a content already stored is
skipped and reported with the memory that holds it. Each write carries an idempotency key made
from the record, so importing the same records twice adds nothing (they count as "already
imported").
--apply needs the services running (CAIRN_NATS_URL). Progress goes to stderr.`;

function fail(message: string): number {
  console.error(`${message}\n\n${usage}`);
  return 2;
}

/** Every .md file under a folder, with its path relative to the folder. */
function vaultFiles(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md"))
        out.push({ path: relative(dir, path), text: readFileSync(path, "utf8") });
    }
  };
  walk(dir);
  return out;
}

export function planOf(
  format: Format,
  path: string,
  options: { scope?: Scope; project?: string },
): ImportPlan {
  const common = { ...options, sourceName: basename(path) };
  if (format === "markdown") {
    if (!statSync(path).isDirectory()) throw new Error(`--from markdown reads a folder; ${path} is a file`);
    return parseMarkdownVault(vaultFiles(path), common);
  }
  const text = readFileSync(path, "utf8");
  if (format === "cairn") return importCairnExport(text, common);
  if (format === "mem0") return importMem0(text, common);
  if (format === "server-memory") return importServerMemory(text, common);
  return importKeymem(text, common);
}

function report(plan: ImportPlan, outcome: ImportOutcome | null): string {
  const lines = [`${plan.items.length} record(s) read`];
  if (outcome) {
    lines.push(`created ${outcome.created}, further steps applied ${outcome.stepsApplied}`);
    if (outcome.alreadyImported > 0)
      lines.push(`already imported before (nothing written) ${outcome.alreadyImported}`);
    lines.push(`skipped as duplicates ${outcome.duplicates.length}, refused ${outcome.refused.length}`);
    for (const d of outcome.duplicates.slice(0, 20))
      lines.push(`  duplicate  ${d.sourceRef}${d.holderId ? ` (held by ${d.holderId})` : ""}`);
    for (const r of outcome.refused.slice(0, 50))
      lines.push(`  refused    ${r.sourceRef} ${r.action}: ${r.code}: ${r.message}`);
  } else {
    const byTier = new Map<string, number>();
    for (const item of plan.items) byTier.set(item.tier, (byTier.get(item.tier) ?? 0) + 1);
    lines.push(
      `would write ${[...byTier].map(([tier, n]) => `${n} ${tier}(s)`).join(", ") || "nothing"} (dry run; --apply writes)`,
    );
  }
  for (const p of plan.problems.slice(0, 50)) lines.push(`  problem    ${p.where}: ${p.message}`);
  if (plan.problems.length > 50) lines.push(`  … and ${plan.problems.length - 50} more problems`);
  return lines.join("\n");
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
  const format = values.from as Format | undefined;
  if (!format || !(formats as readonly string[]).includes(format))
    return fail(`--from is one of ${formats.join(", ")}`);
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
    console.error(`cannot read ${path}: ${(error as Error).message}`);
    return 1;
  }
  if (!values.apply) {
    console.log(
      values.json
        ? JSON.stringify({ records: plan.items.length, problems: plan.problems, applied: false })
        : report(plan, null),
    );
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
    const outcome = await applyImport(plan, send, {
      onProgress: (done, total) => process.stderr.write(`\rimport ${done}/${total}`),
    });
    process.stderr.write("\n");
    console.log(
      values.json
        ? JSON.stringify({ records: plan.items.length, ...outcome, applied: true })
        : report(plan, outcome),
    );
    return outcome.refused.length > 0 ? 1 : 0;
  } finally {
    await nc.close();
  }
}
