// Cairn's own export: JSON Lines, a header line, then one line per memory (proposal, handoff)
// with its current state and every version it went through. A reader of version 1 ignores
// fields it does not know, so a later optional field does not need a new version.
import {
  CairnError,
  type CairnExportHeader,
  CairnExportHeaderSchema,
  type CairnExportRecord,
  CairnExportRecordSchema,
  cairnExportFormat,
  cairnExportVersion,
} from "@cairn/contracts";
import type { z } from "zod";
import {
  type DraftItem,
  holdsSlot,
  type ImportOptions,
  type ImportPlan,
  startImport,
} from "./import-plan.ts";
import { createSlotClaims, slotDomain } from "./slot-claims.ts";

export type CairnExportError = { line: number; message: string };

export type ParsedCairnExport = {
  header: CairnExportHeader | null;
  records: CairnExportRecord[];
  /** The line of each record (1-based), index for index. */
  recordLines: number[];
  /** Lines that could not be read; the others are still returned. */
  errors: CairnExportError[];
};

function describe(error: z.ZodError): string {
  const issues = error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "record"}: ${i.message}`);
  return issues.join("; ") + (error.issues.length > 3 ? `; and ${error.issues.length - 3} more` : "");
}

// U+2028 and U+2029 are valid inside JSON strings but end a line for some readers; escaped,
// every record stays on one line whatever reads the file.
function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")}\n`;
}

function checked<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new CairnError(
    "validation_failed",
    `${what} is not a valid Cairn export line: ${describe(parsed.error)}`,
    {
      details: { what },
    },
  );
}

/** The header line and one line per record, each ending in `\n`; every value is validated first. */
export async function* cairnExportLines(
  header: CairnExportHeader,
  records: Iterable<CairnExportRecord> | AsyncIterable<CairnExportRecord>,
): AsyncGenerator<string> {
  yield jsonLine(checked(CairnExportHeaderSchema, header, "the header"));
  for await (const record of records)
    yield jsonLine(checked(CairnExportRecordSchema, record, `record ${record.id}`));
}

/** The whole export as one string (for exports that fit in memory; otherwise `cairnExportLines`). */
export function encodeCairnExport(header: CairnExportHeader, records: Iterable<CairnExportRecord>): string {
  let out = jsonLine(checked(CairnExportHeaderSchema, header, "the header"));
  for (const record of records)
    out += jsonLine(checked(CairnExportRecordSchema, record, `record ${record.id}`));
  return out;
}

/**
 * Reads an export. A line that is not JSON or not a valid record is reported in `errors` and
 * skipped; the rest is still read. Only a header of another format version stops the reading,
 * since its lines may mean something else.
 */
export function parseCairnExport(text: string): ParsedCairnExport {
  const out: ParsedCairnExport = { header: null, records: [], recordLines: [], errors: [] };
  const lines = text.replace(/^\uFEFF/, "").split("\n");
  const seen = new Map<string, number>();
  let headerSeen = false;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i]!.replace(/\r$/, "");
    if (line.trim().length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      out.errors.push({ line: lineNo, message: `not JSON: ${(error as Error).message}` });
      if (!headerSeen) headerSeen = true;
      continue;
    }
    if (!headerSeen) {
      headerSeen = true;
      const isHeader = typeof value === "object" && value !== null && "format" in value;
      if (isHeader) {
        const header = CairnExportHeaderSchema.safeParse(value);
        if (header.success) {
          out.header = header.data;
          continue;
        }
        const v = value as { format?: unknown; version?: unknown };
        if (v.format === cairnExportFormat && v.version !== cairnExportVersion) {
          out.errors.push({
            line: lineNo,
            message: `export format version ${JSON.stringify(v.version)} is not supported (this reader knows version ${cairnExportVersion}); nothing read`,
          });
          return out;
        }
        out.errors.push({ line: lineNo, message: `not a Cairn export header: ${describe(header.error)}` });
        continue;
      }
      out.errors.push({ line: lineNo, message: "the first line is not a Cairn export header" });
    }
    const record = CairnExportRecordSchema.safeParse(value);
    if (!record.success) {
      out.errors.push({ line: lineNo, message: describe(record.error) });
      continue;
    }
    const first = seen.get(record.data.id);
    if (first !== undefined) {
      out.errors.push({
        line: lineNo,
        message: `memory ${record.data.id} is already on line ${first}; skipped`,
      });
      continue;
    }
    seen.set(record.data.id, lineNo);
    out.records.push(record.data);
    out.recordLines.push(lineNo);
  }
  return out;
}

/**
 * A plan that writes the exported memories again: each with its tier, content and labels, its
 * status applied after it is written, a superseding memory written as the supersede of the one
 * it replaced, a memory made from a proposal written as that proposal's promotion. A purged
 * memory has no text left and is not imported. `options.scope` overrides every record's scope.
 */
export function importCairnExport(
  input: string | ParsedCairnExport,
  options: ImportOptions = {},
): ImportPlan {
  const parsed = typeof input === "string" ? parseCairnExport(input) : input;
  const run = startImport(options, "export");
  const { name, problems } = run;
  for (const e of parsed.errors) problems.push({ where: `${name}:${e.line}`, message: e.message });
  const claims = createSlotClaims();
  const drafts: DraftItem[] = [];
  parsed.records.forEach((record, index) => {
    const where = `${name}:${parsed.recordLines[index] ?? index + 1}`;
    if (record.purged) {
      problems.push({ where, message: `memory ${record.id} was purged; nothing left to import` });
      return;
    }
    const report = run.reportAt(where);
    const scope = options.scope ?? record.scope;
    const slot = holdsSlot(record.tier, record.status)
      ? claims.claim(record.slot, slotDomain(record.tier, scope, record.project), record.id, report)
      : claims.peek(record.slot);
    const successorOf = record.supersedes
      ? { originalId: record.supersedes, via: "supersede" as const }
      : record.promotedFrom
        ? { originalId: record.promotedFrom, via: "promote" as const }
        : undefined;
    const { kind, tags, aliases, keys, project, source, validFrom } = record;
    const episode = record.episode ? { episode: { id: record.episode.id, order: record.episode.order } } : {};
    // The first version is written, each later change of text a revision: the history comes
    // along. (A version that only set the title keeps the content it had.)
    const texts = record.versions.filter((v) => v.title !== undefined || v.content !== undefined);
    const first = texts[0];
    const title = first?.title ?? record.title;
    const content = first?.content ?? record.content;
    const revisions = texts.slice(1).map((v) => ({
      ...(v.title !== undefined ? { title: v.title } : {}),
      ...(v.content !== undefined ? { content: v.content } : {}),
    }));
    drafts.push({
      sourceRef: where,
      tier: record.tier,
      memory: {
        slot,
        kind,
        content,
        title,
        tags,
        aliases,
        keys,
        scope,
        project,
        source,
        validFrom,
        ...episode,
      },
      links: record.links,
      status: record.status,
      invalidAt: record.invalidAt,
      originalId: record.id,
      agent: record.agent,
      ...(successorOf ? { successorOf } : {}),
      ...(revisions.length > 0 ? { revisions } : {}),
    });
  });
  return run.finish(drafts);
}
