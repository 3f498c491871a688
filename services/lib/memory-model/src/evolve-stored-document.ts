import type { MemoryDocument } from "@cairn/contracts";
import { evolveMemoryDocument } from "./evolve-memory-document.ts";
import type { MemoryEvent } from "./memory-events.ts";

/**
 * One step of a view that stores the document without its content (ranking's cards,
 * maintenance's view): the fold runs on the stored document, and the event's content, when it
 * brought one, is handed back for the view to derive what it needs (terms, shingles) before
 * it is dropped. `content` is null when the event left the text as it was, and "" when the
 * memory was purged.
 */
export function evolveStoredDocument(
  stored: MemoryDocument | null,
  event: MemoryEvent,
): { document: MemoryDocument; content: string | null } {
  const next = evolveMemoryDocument(stored, event);
  const content = event.type === "memory.purged" ? "" : next.content !== "" ? next.content : null;
  return { document: next.content === "" ? next : { ...next, content: "" }, content };
}
