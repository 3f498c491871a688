import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { EventData, EventType } from "./events/catalog.ts";
import type { StoredEvent } from "./events/envelope.ts";
import {
  isSealed,
  newSeal,
  openFoldedDocument,
  openMemoryFields,
  openSealedEvents,
  openSealedText,
  SealedContentError,
  type SealState,
  sealMemoryFields,
  sealText,
} from "./sealed-content.ts";
import { storedEvent } from "./testing/stored-event.ts";

const body = {
  slot: "team-lead",
  content: "Maria Keller leads the payments team since March.",
  title: "Payments lead",
  entities: [{ text: "Maria Keller", type: "person" }],
  tags: ["people"],
};

function event(memoryId: string, type: EventType, data: unknown, position = 1): StoredEvent {
  // A sealed payload carries the text fields only, not the whole of its type's schema.
  return storedEvent(type, data as EventData<EventType>, {
    streamId: `memory-${memoryId}`,
    version: position,
    position,
    meta: { recordedAt: "2026-01-01T00:00:00.000Z" },
  });
}

/** A seal ring answering with `seals`, and the memory ids of each call it was asked. */
function recordingSealRing(seals: [string, SealState][]) {
  const calls: string[][] = [];
  const sealRing = {
    async sealsFor(ids: readonly string[]) {
      calls.push([...ids]);
      return new Map(seals);
    },
  };
  return { calls, sealRing };
}

describe("sealed memory content", () => {
  it("seals content, title and entity texts, and opens them with the memory's key", () => {
    const id = randomUUID();
    const key = newSeal();
    const sealed = sealMemoryFields(body, key, id);
    expect(isSealed(sealed.content)).toBe(true);
    expect(isSealed(sealed.title)).toBe(true);
    expect(isSealed(sealed.entities[0]?.text)).toBe(true);
    expect(JSON.stringify(sealed)).not.toContain("Maria");
    // Labels stay readable.
    expect(sealed.slot).toBe("team-lead");
    expect(sealed.tags).toEqual(["people"]);
    expect(openMemoryFields(sealed, { state: "active", seal: key }, id)).toEqual(body);
  });

  it("gives a different ciphertext each time and refuses another memory's id or key", () => {
    const id = randomUUID();
    const key = newSeal();
    const a = sealText(key, id, "same text");
    const b = sealText(key, id, "same text");
    expect(a).not.toBe(b);
    expect(openSealedText(key, id, a)).toBe("same text");
    expect(() => openSealedText(key, randomUUID(), a)).toThrow(SealedContentError);
    expect(() => openSealedText(newSeal(), id, a)).toThrow(SealedContentError);
  });

  it("never uses an IV twice, however many values are sealed", () => {
    const id = randomUUID();
    const key = newSeal();
    // Over a thousand: the random bytes IVs are cut from are drawn again several times.
    const sealed = Array.from({ length: 1200 }, (_, i) => sealText(key, id, `value ${i}`));
    const ivs = sealed.map((v) =>
      Buffer.from(v.slice("cairn-sealed:v1:".length), "base64url").subarray(0, 12),
    );
    expect(new Set(ivs.map((iv) => iv.toString("hex"))).size).toBe(sealed.length);
    expect(ivs.every((iv) => iv.some((byte) => byte !== 0))).toBe(true);
    sealed.forEach((v, i) => {
      expect(openSealedText(key, id, v)).toBe(`value ${i}`);
    });
  });

  it("opens a shredded memory as empty text with no entities, and passes plain text through", () => {
    const id = randomUUID();
    const sealed = sealMemoryFields(body, newSeal(), id);
    const shredded: SealState = { state: "shredded", shreddedAt: "2026-02-01T00:00:00.000Z" };
    expect(openMemoryFields(sealed, shredded, id)).toMatchObject({ content: "", title: "", entities: [] });
    expect(openMemoryFields(sealed, undefined, id)).toMatchObject({ content: "", title: "" });
    expect(openMemoryFields(body, undefined, id)).toEqual(body);
  });

  it("opens a batch of events with one sealRing call and leaves other events alone", async () => {
    const a = randomUUID();
    const b = randomUUID();
    const keyA = newSeal();
    const { calls, sealRing } = recordingSealRing([
      [a, { state: "active", seal: keyA }],
      [b, { state: "shredded", shreddedAt: "2026-02-01T00:00:00.000Z" }],
    ]);
    const events = [
      event(a, "memory.recorded", sealMemoryFields(body, keyA, a)),
      event(b, "memory.recorded", sealMemoryFields(body, newSeal(), b)),
      event(a, "memory.revised", sealMemoryFields({ content: "New text" }, keyA, a), 2),
      event(a, "memory.archived", { reason: "old" }, 3),
    ];
    const opened = await openSealedEvents(events, sealRing);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.sort()).toEqual([a, b].sort());
    expect(opened[0]?.data).toMatchObject({ content: body.content, title: body.title });
    expect(opened[1]?.data).toMatchObject({ content: "", title: "", entities: [] });
    expect(opened[2]?.data).toEqual({ content: "New text" });
    expect(opened[3]).toBe(events[3]);
  });

  it("opens a folded document's text, and asks no seal for one with nothing sealed", async () => {
    const id = randomUUID();
    const seal = newSeal();
    const { calls, sealRing } = recordingSealRing([[id, { state: "active", seal }]]);
    const doc = { id, version: 21, ...sealMemoryFields({ ...body, content: "Draft 21." }, seal, id) };
    const opened = await openFoldedDocument(doc, sealRing);
    expect(calls).toEqual([[id]]);
    expect(opened).toEqual({ id, version: 21, ...body, content: "Draft 21." });
    // A purged memory's document keeps no text: nothing to open, no seal asked for.
    const purged = { id, version: 22, ...body, content: "", title: "", entities: [] };
    expect(await openFoldedDocument(purged, sealRing)).toBe(purged);
    expect(calls).toHaveLength(1);
  });
});
