// `cairn.search.history`: every version of a memory, folded from its stream in the log: when,
// by whom, which event, what it changed, and the title and content of that version (none once
// the memory is purged: its seal is gone, and with it every version's text).
import {
  CairnError,
  type HistoryReply,
  type HistoryRequestSchema,
  type MemoryDocument,
  type MemoryVersion,
} from "@cairn/contracts";
import { canSee, evolveMemoryDocument, isMemoryEvent, memoryStreamId } from "@cairn/memory-model";
import type { z } from "zod";
import { type LogSources, openEvents } from "./fold-from-log.ts";
import { type ReadModels, waitForLexical } from "./read-models.ts";

/** Fields that every event moves and that say nothing about what changed. */
const bookkeeping = new Set(["version", "updatedAt"]);

function changedFields(before: MemoryDocument | null, after: MemoryDocument): string[] {
  if (before === null) return [];
  return Object.keys(after).filter(
    (k) =>
      !bookkeeping.has(k) &&
      JSON.stringify((before as Record<string, unknown>)[k]) !==
        JSON.stringify((after as Record<string, unknown>)[k]),
  );
}

function noteOf(data: unknown): string | null {
  const d = data as { reason?: unknown; note?: unknown; summary?: unknown };
  for (const v of [d.reason, d.note, d.summary]) if (typeof v === "string") return v;
  return null;
}

export async function memoryHistory(
  models: ReadModels,
  sources: LogSources,
  request: z.infer<typeof HistoryRequestSchema>,
): Promise<HistoryReply> {
  await waitForLexical(models, { afterPosition: request.afterPosition });
  const events = (await openEvents(sources, await sources.log.readStream(memoryStreamId(request.id)))).filter(
    isMemoryEvent,
  );
  const versions: MemoryVersion[] = [];
  let doc: MemoryDocument | null = null;
  for (const event of events) {
    const next = evolveMemoryDocument(doc, event);
    versions.push({
      version: next.version,
      position: event.position,
      type: event.type,
      at: event.meta.recordedAt,
      agent: event.meta.actor,
      changed: changedFields(doc, next),
      status: next.status,
      title: next.title,
      content: next.content,
      note: noteOf(event.data),
    });
    doc = next;
  }
  if (doc === null || !canSee(doc, request.principal)) {
    throw new CairnError("not_found", `no memory ${request.id} that you can see`, {
      hint: "check the id; private memories of other agents are not visible",
    });
  }
  const purged = Boolean(doc.purgedAt);
  return {
    id: doc.id,
    tier: doc.tier,
    purged,
    versions: purged ? versions.map((v) => ({ ...v, title: null, content: null })) : versions,
    current: doc,
  };
}
