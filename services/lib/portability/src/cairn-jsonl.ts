// Cairn's own export: JSON Lines, a header line, then one line per memory (proposal, handoff)
// with its current state and every version it went through. A reader of version 1 ignores
// fields it does not know, so a later optional field does not need a new version.
import {
  CairnError,
  type CairnExportEnd,
  CairnExportEndSchema,
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
  /** The end line; null when the export has none (it was cut off). */
  end: CairnExportEnd | null;
  /** Lines between the header and the end line that were meant as records (read or not). */
  lineCount: number;
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

const endLine = (end: CairnExportEnd) => jsonLine(CairnExportEndSchema.parse(end));

/**
 * The header line, one line per record and the end line, each ending in `\n`; every value is
 * validated first. When the records fail part way (a store went away), `onError` decides: with
 * it, the export ends with an end line that says it is not complete and why (a streamed
 * answer whose status was already sent); without it, the error is thrown (a file left without
 * an end line).
 */
export async function* cairnExportLines(
  header: CairnExportHeader,
  records: Iterable<CairnExportRecord> | AsyncIterable<CairnExportRecord>,
  options: { onError?: (error: unknown) => NonNullable<CairnExportEnd["error"]> } = {},
): AsyncGenerator<string> {
  yield jsonLine(checked(CairnExportHeaderSchema, header, "the header"));
  let count = 0;
  try {
    for await (const record of records) {
      yield jsonLine(checked(CairnExportRecordSchema, record, `record ${record.id}`));
      count += 1;
    }
  } catch (error) {
    if (!options.onError) throw error;
    yield endLine({ end: true, records: count, complete: false, error: options.onError(error) });
    return;
  }
  yield endLine({ end: true, records: count, complete: true });
}

/** The whole export as one string (for exports that fit in memory; otherwise `cairnExportLines`). */
export function encodeCairnExport(header: CairnExportHeader, records: Iterable<CairnExportRecord>): string {
  let out = jsonLine(checked(CairnExportHeaderSchema, header, "the header"));
  let count = 0;
  for (const record of records) {
    out += jsonLine(checked(CairnExportRecordSchema, record, `record ${record.id}`));
    count += 1;
  }
  return out + endLine({ end: true, records: count, complete: true });
}

/**
 * Reads an export. A line that is not JSON or not a valid record is reported in `errors` and
 * skipped; the rest is still read. Only a header of another format version stops the reading,
 * since its lines may mean something else.
 */
export function parseCairnExport(text: string): ParsedCairnExport {
  const out: ParsedCairnExport = {
    header: null,
    records: [],
    recordLines: [],
    errors: [],
    end: null,
    lineCount: 0,
  };
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
      if (headerSeen && out.end === null) out.lineCount += 1;
      headerSeen = true;
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
    if (out.end !== null) {
      out.errors.push({ line: lineNo, message: "a line after the end line; skipped" });
      continue;
    }
    if (typeof value === "object" && value !== null && (value as { end?: unknown }).end === true) {
      const end = CairnExportEndSchema.safeParse(value);
      if (end.success) out.end = end.data;
      else out.errors.push({ line: lineNo, message: `not a valid end line: ${describe(end.error)}` });
      continue;
    }
    out.lineCount += 1;
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
  // An export that stopped early is imported as far as it goes, and said to be partial.
  const { end } = parsed;
  if (end === null && parsed.lineCount > 0) {
    problems.push({
      where: name,
      message:
        "no end line: the export was cut off (or written by an older Cairn); the records it holds are imported",
    });
  } else if (end && !end.complete) {
    problems.push({
      where: name,
      message: `the export stopped early after ${end.records} records (${end.error?.code ?? "error"}: ${end.error?.message ?? "unknown"}); export again for the rest`,
    });
  } else if (end && end.records !== parsed.lineCount) {
    problems.push({
      where: name,
      message: `the end line counts ${end.records} records, the file holds ${parsed.lineCount}`,
    });
  }
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
