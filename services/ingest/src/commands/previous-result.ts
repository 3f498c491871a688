import type { StoredEvent, WriteResult } from "@cairn/contracts";
import { idOfStream } from "./command-ids.ts";

/** The result a command had, rebuilt from the events it wrote (for an idempotent retry). */
export function resultFromEvents(mainStreamId: string, events: StoredEvent[]): WriteResult {
  const byStream = new Map<string, StoredEvent[]>();
  for (const e of events) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e]);
  const describe = (streamId: string, list: StoredEvent[]) => ({
    id: idOfStream(streamId),
    version: Math.max(...list.map((e) => e.version)),
    position: Math.max(...list.map((e) => e.position)),
  });
  const main = describe(mainStreamId, byStream.get(mainStreamId) ?? []);
  const affected = [...byStream.entries()]
    .filter(([streamId]) => streamId !== mainStreamId && !streamId.startsWith("key-"))
    .map(([streamId, list]) => describe(streamId, list));
  return {
    ...main,
    position: Math.max(...events.map((e) => e.position)),
    ...(affected.length > 0 ? { affected } : {}),
    replayed: true,
  };
}
