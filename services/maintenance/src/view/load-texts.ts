// The current title and content of some memories, read from the log and opened with their
// seals: only for the moment a job needs text (a summary, a vector query), never kept.
import { openSealedEvents, type SealRing, sealedEventTypes, streamIdFor } from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";

export type MemoryText = { title: string; content: string };

export async function loadTexts(
  log: Pick<EventStore, "readStreams">,
  sealRing: SealRing,
  ids: readonly string[],
): Promise<Map<string, MemoryText>> {
  const out = new Map<string, MemoryText>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 200) {
    const chunk = unique.slice(i, i + 200);
    const streams = await log.readStreams(chunk.map((id) => streamIdFor("memory", id)));
    for (const id of chunk) {
      const events = (streams.get(streamIdFor("memory", id)) ?? []).filter((e) =>
        sealedEventTypes.has(e.type),
      );
      let text: MemoryText | undefined;
      for (const event of await openSealedEvents(events, sealRing)) {
        const data = event.data as { title?: string; content?: string };
        text = { title: data.title ?? text?.title ?? "", content: data.content ?? text?.content ?? "" };
      }
      if (text) out.set(id, text);
    }
  }
  return out;
}
