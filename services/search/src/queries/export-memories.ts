// `cairn.search.export`: a page of a tenant's memories as export records, read from the log
// (every version, text opened with the seals; a purged memory's text is gone from all of
// them), limited to what the principal may see and to a scope if asked.
import type { ExportPageReply, ExportPageRequestSchema, MemoryDocument } from "@cairn/contracts";
import { canSee, memoryIdOfStream } from "@cairn/memory-model";
import { cairnExportRecord } from "@cairn/portability";
import type { z } from "zod";
import { foldMemoryDocuments } from "../projections/fold-memory-documents.ts";
import { type LogSources, openEvents } from "./fold-from-log.ts";

export type ExportSources = LogSources & {
  log: LogSources["log"] & {
    listMemoryStreams(
      tenant: string,
      after: number,
      limit: number,
    ): Promise<{ streamId: string; position: number }[]>;
  };
};

/**
 * A page's records stop growing at about this many bytes of JSON: a reply must fit in one NATS
 * message (1 MiB by default), and memories of 32,000 characters with every version's text
 * reach that in a few dozen records. A page always holds at least one record.
 */
export const exportPageBudgetBytes = 512 * 1024;

export async function exportPage(
  sources: ExportSources,
  request: z.infer<typeof ExportPageRequestSchema>,
  budgetBytes = exportPageBudgetBytes,
): Promise<ExportPageReply> {
  const { principal } = request;
  const page = await sources.log.listMemoryStreams(principal.tenant, request.after, request.limit);
  if (page.length === 0) return { records: [], next: null };
  const streams = await sources.log.readStreams(page.map((p) => p.streamId));
  const records = [];
  let bytes = 0;
  for (const { streamId, position } of page) {
    const events = await openEvents(sources, streams.get(streamId) ?? []);
    const id = memoryIdOfStream(streamId) as string;
    const document = foldMemoryDocuments(events, new Map()).documents.get(id) as MemoryDocument | undefined;
    if (!document || !canSee(document, principal)) continue;
    if (request.scope !== undefined && document.scope !== request.scope) continue;
    const record = cairnExportRecord(document, events);
    const size = Buffer.byteLength(JSON.stringify(record));
    // Full: the page ends before this record, which opens the next one.
    if (records.length > 0 && bytes + size > budgetBytes) {
      return { records, next: previousPosition(page, position, request.after) };
    }
    records.push(record);
    bytes += size;
  }
  const last = page.at(-1)?.position ?? request.after;
  return { records, next: page.length < request.limit ? null : last };
}

/** The cursor just before `position`: the position of the stream listed before it (or `after`). */
function previousPosition(page: { position: number }[], position: number, after: number): number {
  const index = page.findIndex((p) => p.position === position);
  return index > 0 ? (page[index - 1] as { position: number }).position : after;
}
