// `pnpm cairn export`: a tenant's memories, proposals and handoffs as Cairn's JSON Lines (every
// version, links, keys, validity, provenance) or as a Markdown folder (one file per memory,
// front matter, body and [[slot]] links: an Obsidian vault). Read from the event log with the
// seals, as search's export does (purged memories keep no text); no service needs to run.
import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import {
  type CairnExportRecord,
  cairnExportFormat,
  cairnExportVersion,
  type Scope,
  scopes,
} from "@cairn/contracts";
import { createDatabasePool, createEventStore, createMemorySealStore } from "@cairn/event-store";
import { cairnExportLines, exportMarkdownVault } from "@cairn/portability";
import { exportPage } from "@cairn/search";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";

export const summary = "export a tenant's memories as Cairn JSON Lines or a Markdown folder";

const usage = `usage: pnpm cairn export [--tenant <tenant>] [--scope team|agent|global]
                         [--format cairn|markdown] [--out <file or folder>]

  --tenant   the tenant to export (default: CAIRN_DEFAULT_TENANT, or "local")
  --scope    only memories of this scope (default: every scope)
  --format   cairn (default): JSON Lines, a header then one line per memory, to --out or stdout
             markdown: one .md file per memory under the folder --out (required)
  --out      where to write

Every memory, proposal and handoff of the tenant, with all its versions; a purged memory has
no text. Reads CAIRN_DATABASE_URL (the event log and the seals). Progress goes to stderr.`;

function fail(message: string): number {
  console.error(`${message}\n\n${usage}`);
  return 2;
}

/** Every record of a tenant, page by page (the whole tenant never sits in memory at once). */
async function* records(
  sources: Parameters<typeof exportPage>[0],
  tenant: string,
  scope: Scope | undefined,
  progress: (n: number) => void,
): AsyncGenerator<CairnExportRecord> {
  const principal = { tenant, agent: "export", role: "admin" as const, primary: true };
  let after = 0;
  let count = 0;
  for (;;) {
    const page = await exportPage(sources, { principal, after, limit: 200, ...(scope ? { scope } : {}) });
    for (const record of page.records) {
      count += 1;
      yield record;
    }
    progress(count);
    if (page.next === null) return;
    after = page.next;
  }
}

export async function run(args: string[]): Promise<number> {
  let values: { tenant?: string; scope?: string; format?: string; out?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        tenant: { type: "string" },
        scope: { type: "string" },
        format: { type: "string" },
        out: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    return fail((error as Error).message);
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const format = values.format ?? "cairn";
  if (format !== "cairn" && format !== "markdown")
    return fail(`--format is cairn or markdown, not ${format}`);
  if (values.scope !== undefined && !(scopes as readonly string[]).includes(values.scope))
    return fail(`--scope is one of ${scopes.join(", ")}`);
  if (format === "markdown" && !values.out)
    return fail("--format markdown writes a folder: give --out <folder>");
  const tenant = values.tenant ?? process.env.CAIRN_DEFAULT_TENANT ?? "local";
  const scope = values.scope as Scope | undefined;

  const env = parseEnv(baseEnvSchema);
  const pool = createDatabasePool({
    connectionString: env.CAIRN_DATABASE_URL,
    max: 2,
    applicationName: "cairn-export",
  });
  const sources = { log: createEventStore(pool), sealRing: createMemorySealStore(pool) };
  const progress = (n: number) => process.stderr.write(`\rexported ${n} memories`);
  try {
    if (format === "markdown") {
      const all: CairnExportRecord[] = [];
      for await (const record of records(sources, tenant, scope, progress)) all.push(record);
      const dir = values.out as string;
      for (const file of exportMarkdownVault(all)) {
        const path = join(dir, file.path);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, file.text);
      }
      process.stderr.write(`\nwrote ${all.length} files under ${dir}\n`);
      return 0;
    }
    const header = {
      format: cairnExportFormat,
      version: cairnExportVersion,
      exportedAt: new Date().toISOString(),
      tenant,
      scope: scope ?? null,
    } as const;
    const out: NodeJS.WritableStream = values.out ? createWriteStream(values.out) : process.stdout;
    for await (const line of cairnExportLines(header, records(sources, tenant, scope, progress))) {
      if (!out.write(line)) await new Promise((resolve) => out.once("drain", resolve));
    }
    if (values.out) await new Promise<void>((resolve) => out.end(() => resolve()));
    process.stderr.write(values.out ? `\nwrote ${values.out}\n` : "\n");
    return 0;
  } finally {
    await pool.end();
  }
}
