// What every import surface shares (`pnpm cairn import`, `POST /v1/import`): the formats, which
// importer reads each, and the summary an import answers with. A surface only gets the bytes
// (a file, a folder, an upload) into an `ImportSource`; everything after is decided here.
import { gunzipSync } from "node:zlib";
import { CairnError, ErrorCodeSchema, type Tier } from "@cairn/contracts";
import { z } from "zod";
import type { ImportOutcome } from "./apply-import.ts";
import { importCairnExport } from "./cairn-jsonl.ts";
import type { ImportOptions, ImportPlan, ImportProblem } from "./import-plan.ts";
import { importKeymem } from "./keymem.ts";
import { type MarkdownFile, parseMarkdownVault } from "./markdown.ts";
import { importMem0 } from "./mem0.ts";
import { importServerMemory } from "./server-memory.ts";
import { type ArchiveLimits, archiveKindOf, readVaultArchive } from "./vault-archive.ts";

export const importFormats = ["cairn", "mem0", "server-memory", "markdown", "keymem"] as const;
export type ImportFormat = (typeof importFormats)[number];

/** What each format is, in a sentence (help texts, the OpenAPI document). */
export const importFormatDescriptions: Record<ImportFormat, string> = {
  cairn: "a Cairn export (`pnpm cairn export`, `GET /v1/export`): JSON Lines",
  mem0: "mem0's export JSON (`get_all`)",
  "server-memory": "the MCP reference memory server's memory.jsonl",
  markdown: "a Markdown vault (KeepM or Obsidian: front matter, body, [[links]])",
  keymem: "keymem's graph.json (its keys become Cairn keys)",
};

/** One file's text, or a vault's Markdown files with their paths relative to the vault. */
export type ImportSource = { text: string } | { files: MarkdownFile[] };

/**
 * The source of an import from a file's bytes: a vault's archive (zip, tar, tar.gz) unpacked
 * within `limits`; a gzipped file of another format unpacked within them too; any other file
 * read as UTF-8 text (one Markdown file is a vault of one note).
 */
export function importSourceOf(format: ImportFormat, bytes: Uint8Array, limits: ArchiveLimits): ImportSource {
  const kind = archiveKindOf(bytes);
  if (kind !== null && format === "markdown") return { files: readVaultArchive(bytes, limits) };
  if (kind === "tar.gz") {
    let text: Buffer;
    try {
      text = gunzipSync(bytes, { maxOutputLength: limits.maxUnpackedBytes });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
        throw new CairnError("too_large", `the file unpacks to more than ${limits.maxUnpackedBytes} bytes`, {
          hint: "import it in parts, or from the command line (`pnpm cairn import`)",
          details: { reason: "archive_too_large", ...limits },
        });
      }
      throw new CairnError("validation_failed", "the gzip file could not be unpacked: it is damaged", {
        hint: "send the file again, or send it unpacked",
        details: { reason: "unreadable_archive", kind: "gzip" },
        cause: error,
      });
    }
    return { text: new TextDecoder("utf-8").decode(text) };
  }
  if (kind !== null) {
    throw new CairnError(
      "validation_failed",
      `a ${kind} archive is read only for a Markdown vault (markdown)`,
      {
        hint: `send the ${format} file itself, not an archive of it`,
        details: { reason: "archive_not_expected", format, kind },
      },
    );
  }
  return { text: new TextDecoder("utf-8").decode(bytes) };
}

/**
 * The plan of an import: the format's importer over the source. A source that gave no record
 * at all and only problems is not a file of that format: that is an error (`validation_failed`)
 * naming the first problems, never an empty import that looks like success.
 */
export function planImport(
  format: ImportFormat,
  source: ImportSource,
  options: ImportOptions = {},
): ImportPlan {
  const plan = readSource(format, source, options);
  if (plan.items.length === 0 && plan.problems.length > 0) {
    const first = plan.problems[0] as ImportProblem;
    throw new CairnError(
      "validation_failed",
      `nothing in ${options.sourceName ?? "the file"} could be read as ${format}: ${first.where}: ${first.message}`,
      {
        hint: `check that it is ${importFormatDescriptions[format]}, or pick the format it is in`,
        details: { reason: "unreadable_file", format, problems: plan.problems.slice(0, 20) },
      },
    );
  }
  return plan;
}

function readSource(format: ImportFormat, source: ImportSource, options: ImportOptions): ImportPlan {
  if (format === "markdown") {
    if (!("files" in source)) {
      // One Markdown file is a vault of one note.
      return parseMarkdownVault([{ path: options.sourceName ?? "note.md", text: source.text }], options);
    }
    return parseMarkdownVault(source.files, options);
  }
  if (!("text" in source)) {
    throw new CairnError("validation_failed", `--from ${format} reads one file, not a folder or an archive`, {
      hint: "send the file itself; only a Markdown vault comes as a folder or an archive",
      details: { reason: "archive_not_expected", format },
    });
  }
  switch (format) {
    case "cairn":
      return importCairnExport(source.text, options);
    case "mem0":
      return importMem0(source.text, options);
    case "server-memory":
      return importServerMemory(source.text, options);
    case "keymem":
      return importKeymem(source.text, options);
  }
}

const count = z.number().int().nonnegative();

/**
 * What an import answers, on every surface: a dry run's plan, or what ingest made of it (the
 * fields of `ImportOutcome`, present once applied).
 */
export const ImportSummarySchema = z.object({
  /** False for a dry run: the source was read, nothing was written. */
  applied: z.boolean(),
  /** Records read from the source. */
  records: count,
  /** The records by tier (what a dry run would write). */
  byTier: z.object({ memory: count, proposal: count, handoff: count }),
  /** Records written. */
  created: count.optional(),
  /** Records an earlier import by the same caller wrote: answered again, nothing written. */
  alreadyImported: count.optional(),
  /** Later steps carried out: supersedes, promotions, statuses, invalidations. */
  stepsApplied: count.optional(),
  /** Records whose content was already stored, with the memory that holds it. */
  duplicates: z.array(z.object({ sourceRef: z.string(), holderId: z.string().nullable() })).optional(),
  /** Records or steps ingest refused, with its code and message. */
  refused: z
    .array(
      z.object({ sourceRef: z.string(), action: z.string(), code: ErrorCodeSchema, message: z.string() }),
    )
    .optional(),
  /** What the importer could not read, cleaned or skipped, and why. */
  problems: z.array(z.object({ where: z.string(), message: z.string() })),
});
export type ImportSummary = z.infer<typeof ImportSummarySchema>;

export function importSummary(plan: ImportPlan, outcome: ImportOutcome | null): ImportSummary {
  const byTier: Record<Tier, number> = { memory: 0, proposal: 0, handoff: 0 };
  for (const item of plan.items) byTier[item.tier] += 1;
  const { problems: _same, ...applied } = outcome ?? {};
  return {
    applied: outcome !== null,
    records: plan.items.length,
    byTier,
    ...applied,
    problems: plan.problems,
  };
}

/** The summary as lines for a person (the command line prints them). */
export function formatImportSummary(summary: ImportSummary): string {
  const lines = [`${summary.records} record(s) read`];
  if (summary.applied) {
    lines.push(`created ${summary.created ?? 0}, further steps applied ${summary.stepsApplied ?? 0}`);
    if ((summary.alreadyImported ?? 0) > 0)
      lines.push(`already imported before (nothing written) ${summary.alreadyImported}`);
    const duplicates = summary.duplicates ?? [];
    const refused = summary.refused ?? [];
    lines.push(`skipped as duplicates ${duplicates.length}, refused ${refused.length}`);
    for (const d of duplicates.slice(0, 20))
      lines.push(`  duplicate  ${d.sourceRef}${d.holderId ? ` (held by ${d.holderId})` : ""}`);
    if (duplicates.length > 20) lines.push(`  … and ${duplicates.length - 20} more duplicates`);
    for (const r of refused.slice(0, 50))
      lines.push(`  refused    ${r.sourceRef} ${r.action}: ${r.code}: ${r.message}`);
    if (refused.length > 50) lines.push(`  … and ${refused.length - 50} more refusals`);
  } else {
    const tiers = Object.entries(summary.byTier).filter(([, n]) => n > 0);
    lines.push(
      `would write ${tiers.map(([tier, n]) => `${n} ${tier}(s)`).join(", ") || "nothing"} (dry run; apply to write)`,
    );
  }
  for (const p of summary.problems.slice(0, 50)) lines.push(`  problem    ${p.where}: ${p.message}`);
  if (summary.problems.length > 50) lines.push(`  … and ${summary.problems.length - 50} more problems`);
  return lines.join("\n");
}
