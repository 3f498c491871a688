// Memory text in the log is sealed with a per-memory content key (contracts/sealed-content.ts).
// The ranking projections need the text (terms, entities), so they open each event's sealed
// fields first, with keys asked of ingest over the bus (`cairn.ingest.content_keys`). Keys
// stay in memory only, in a small cache that forgets a memory's key when it is purged.
import { requestRpc } from "@cairn/bus";
import {
  type ContentKeyring,
  type ContentKeyState,
  openSealedEvents,
  remoteContentKeyring,
  type StoredEvent,
} from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Projection } from "./run-projection.ts";

export type CachedKeyring = ContentKeyring & { forget: (memoryId: string) => void };

/** A keyring over the bus with a bounded cache (least recently used out first). */
export function cachedRemoteKeyring(nc: NatsConnection, maxEntries = 2000): CachedKeyring {
  const remote = remoteContentKeyring((subject, payload) =>
    requestRpc(nc, subject, payload, { timeoutMs: 10_000 }),
  );
  const cache = new Map<string, ContentKeyState>();
  return {
    async keysFor(memoryIds) {
      const out = new Map<string, ContentKeyState>();
      const missing: string[] = [];
      for (const id of memoryIds) {
        const hit = cache.get(id);
        if (hit) {
          cache.delete(id);
          cache.set(id, hit);
          out.set(id, hit);
        } else missing.push(id);
      }
      if (missing.length > 0) {
        for (const [id, state] of await remote.keysFor(missing)) {
          out.set(id, state);
          cache.set(id, state);
        }
        while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      }
      return out;
    },
    forget: (memoryId) => {
      cache.delete(memoryId);
    },
  };
}

/** The projection, fed events whose sealed memory fields are open (empty once purged). */
export function withOpenedContent(projection: Projection, keyring: CachedKeyring): Projection {
  return {
    ...projection,
    apply: async (event: StoredEvent, io) => {
      if (event.type === "memory.purged") keyring.forget(event.streamId.replace(/^memory-/, ""));
      const [opened] = await openSealedEvents([event], keyring);
      return projection.apply(opened ?? event, io);
    },
  };
}
