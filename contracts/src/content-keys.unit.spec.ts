import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentKeysReply, contentKeysSubject, remoteContentKeyring } from "./content-keys.ts";
import { type ContentKeyState, newContentKey } from "./sealed-content.ts";

describe("content keys over the bus", () => {
  it("carries active and destroyed keys through the reply, in chunks of 500", async () => {
    const active = randomUUID();
    const shredded = randomUUID();
    const key = newContentKey();
    const states = new Map<string, ContentKeyState>([
      [active, { state: "active", key }],
      [shredded, { state: "shredded", shreddedAt: "2026-02-01T00:00:00.000Z" }],
    ]);
    const asked: number[] = [];
    const keyring = remoteContentKeyring(async (subject, payload) => {
      expect(subject).toBe(contentKeysSubject);
      asked.push(payload.memoryIds.length);
      return contentKeysReply(new Map([...states].filter(([id]) => payload.memoryIds.includes(id))));
    });
    const ids = [active, shredded, ...Array.from({ length: 600 }, () => randomUUID())];
    const found = await keyring.keysFor(ids);
    expect(asked).toEqual([500, 102]);
    expect(found.get(active)).toEqual({ state: "active", key });
    expect(found.get(shredded)).toEqual({ state: "shredded", shreddedAt: "2026-02-01T00:00:00.000Z" });
    expect(found.size).toBe(2);
  });
});
