// `cairn.ingest.content_keys`: the content keys of memories, for a service that projects the
// log without a connection to Postgres (ranking). Ingest answers from `cairn_memory_keys`.
// Internal to the deployment: the gateway never relays it. Keys are never logged or stored
// by the asker beyond a cache it drops when it sees `memory.purged`.
import { z } from "zod";
import { IdSchema, TimestampSchema } from "./memory.ts";
import type { ContentKeyring, ContentKeyState } from "./sealed-content.ts";

export const contentKeysSubject = "cairn.ingest.content_keys";

export const ContentKeysRequestSchema = z.object({ memoryIds: z.array(IdSchema).min(1).max(500) }).strict();
export type ContentKeysRequest = z.infer<typeof ContentKeysRequestSchema>;

/** Memories with no key (never sealed) are left out. `key` is base64 while the key exists. */
export const ContentKeysReplySchema = z.object({
  keys: z.array(
    z.object({
      memoryId: IdSchema,
      state: z.enum(["active", "shredded"]),
      key: z.string().nullable(),
      shreddedAt: TimestampSchema.nullable(),
    }),
  ),
});
export type ContentKeysReply = z.infer<typeof ContentKeysReplySchema>;

export function contentKeysReply(states: ReadonlyMap<string, ContentKeyState>): ContentKeysReply {
  return {
    keys: [...states].map(([memoryId, s]) =>
      s.state === "active"
        ? { memoryId, state: "active", key: Buffer.from(s.key).toString("base64"), shreddedAt: null }
        : { memoryId, state: "shredded", key: null, shreddedAt: s.shreddedAt },
    ),
  };
}

/**
 * A keyring that asks ingest over the bus (`request` sends one request and answers the reply
 * data, e.g. `requestRpc` bound to a connection). Asks in chunks of 500.
 */
export function remoteContentKeyring(
  request: (subject: string, payload: ContentKeysRequest) => Promise<unknown>,
): ContentKeyring {
  return {
    async keysFor(memoryIds) {
      const out = new Map<string, ContentKeyState>();
      const ids = [...new Set(memoryIds)];
      for (let i = 0; i < ids.length; i += 500) {
        const reply = ContentKeysReplySchema.parse(
          await request(contentKeysSubject, { memoryIds: ids.slice(i, i + 500) }),
        );
        for (const k of reply.keys) {
          out.set(
            k.memoryId,
            k.state === "active" && k.key !== null
              ? { state: "active", key: new Uint8Array(Buffer.from(k.key, "base64")) }
              : { state: "shredded", shreddedAt: k.shreddedAt ?? new Date(0).toISOString() },
          );
        }
      }
      return out;
    },
  };
}
