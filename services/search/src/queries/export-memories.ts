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

export async function exportPage(
  sources: ExportSources,
  request: z.infer<typeof ExportPageRequestSchema>,
): Promise<ExportPageReply> {
  const { principal } = request;
  const page = await sources.log.listMemoryStreams(principal.tenant, request.after, request.limit);
  if (page.length === 0) return { records: [], next: null };
  const streams = await sources.log.readStreams(page.map((p) => p.streamId));
  const records = [];
  for (const { streamId } of page) {
    const events = await openEvents(sources, streams.get(streamId) ?? []);
    const id = memoryIdOfStream(streamId) as string;
    const document = foldMemoryDocuments(events, new Map()).documents.get(id) as MemoryDocument | undefined;
    if (!document || !canSee(document, principal)) continue;
    if (request.scope !== undefined && document.scope !== request.scope) continue;
    records.push(cairnExportRecord(document, events));
  }
  const last = page.at(-1)?.position ?? request.after;
  return { records, next: page.length < request.limit ? null : last };
}
