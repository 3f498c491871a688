import { randomUUID } from "node:crypto";
import type { StoredEvent } from "@cairn/contracts";
import type { CommittedEvent } from "@cairn/event-store";
import { describe, expect, it } from "vitest";
import { cutIntoMessages, maxBytesPerMessage, maxEventsPerMessage } from "./relay-committed-events.ts";

let position = 0;
function committed(transactionId: string, text = "x"): CommittedEvent {
  position += 1;
  const event: StoredEvent = {
    eventId: randomUUID(),
    position,
    streamId: `memory-${position}`,
    streamType: "memory",
    version: 1,
    type: "memory.verified",
    schemaVersion: 1,
    data: { note: text },
    meta: {
      tenant: "acme",
      actor: "alice",
      correlationId: "c",
      causationId: null,
      traceContext: {},
      recordedAt: "2026-01-01T00:00:00.000Z",
    },
  };
  return { transactionId, event };
}

const positions = (pieces: ReturnType<typeof cutIntoMessages>) =>
  pieces.map((p) => p.events.map((e) => e.position));

describe("cutting the log into messages", () => {
  it("puts the events of one commit together, and each commit apart", () => {
    const read = [committed("10"), committed("10"), committed("11"), committed("12"), committed("12")];
    const pieces = cutIntoMessages(read, false);
    expect(pieces.map((p) => [p.transactionId, p.events.length])).toEqual([
      ["10", 2],
      ["11", 1],
      ["12", 2],
    ]);
  });

  it("cuts a large commit the same way when the relay resumes after one of its pieces", () => {
    const read = Array.from({ length: 300 }, () => committed("20"));
    const pieces = cutIntoMessages(read, false);
    expect(pieces.map((p) => p.events.length)).toEqual([maxEventsPerMessage, maxEventsPerMessage, 44]);
    // After a crash between the second piece's publish and the checkpoint: read again after the first.
    const resumed = cutIntoMessages(read.slice(maxEventsPerMessage), false);
    expect(positions(resumed)).toEqual(positions(pieces).slice(1));
  });

  it("leaves a read's last piece for the next read when the read stopped at its limit", () => {
    const read = [
      ...Array.from({ length: 3 }, () => committed("30")),
      ...Array.from({ length: 2 }, () => committed("31")),
    ];
    expect(positions(cutIntoMessages(read, true))).toEqual([positions(cutIntoMessages(read, false))[0]]);
    // One piece alone is sent: the read never stops inside the first piece.
    expect(cutIntoMessages(read.slice(0, 3), true)).toHaveLength(1);
  });

  it("keeps a message under its size, and sends an event larger than that alone", () => {
    const big = "y".repeat(maxBytesPerMessage / 3);
    const read = [
      committed("40", big),
      committed("40", big),
      committed("40", big),
      committed("40", "z".repeat(maxBytesPerMessage)),
    ];
    const pieces = cutIntoMessages(read, false);
    expect(pieces.map((p) => p.events.length)).toEqual([2, 1, 1]);
    for (const piece of pieces.slice(0, 2))
      expect(JSON.stringify(piece.events).length).toBeLessThan(maxBytesPerMessage);
  });
});
