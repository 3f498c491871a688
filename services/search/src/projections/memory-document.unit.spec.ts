import { randomUUID } from "node:crypto";
import { type EventData, type EventType, memoryEventSchemas, type StoredEvent } from "@cairn/contracts";
import { describe, expect, test } from "vitest";
import { memoryRecord } from "../testing/test-log.ts";
import { foldEvents } from "./fold-events.ts";
import { evolveMemoryDocument } from "./memory-document.ts";
import { decodeEvent, isPoisonEventError, type MemoryEvent } from "./projected-event.ts";

const id = "00000000-0000-4000-8000-000000000042";
let position = 0;

function event<T extends EventType>(
  type: T,
  data: EventData<T>,
  version: number,
  at = "2026-11-01T00:00:00.000Z",
) {
  position += 1;
  return {
    eventId: randomUUID(),
    position,
    streamId: `memory-${id}`,
    streamType: "memory",
    version,
    type,
    schemaVersion: 1,
    data,
    meta: {
      tenant: "acme",
      actor: "alice",
      correlationId: "c",
      causationId: null,
      traceContext: {},
      recordedAt: at,
    },
  } as StoredEvent<T, EventData<T>>;
}

const recorded = (tier: "memory" | "proposal" | "handoff" = "memory") =>
  event(
    tier === "memory" ? "memory.recorded" : tier === "proposal" ? "proposal.submitted" : "handoff.opened",
    memoryRecord({ id, agent: "alice", tier, content: "hello" }),
    1,
  );

function fold(...events: StoredEvent[]) {
  return events.reduce<ReturnType<typeof evolveMemoryDocument> | null>(
    (doc, e) => evolveMemoryDocument(doc, decodeEvent(e) as MemoryEvent),
    null,
  );
}

describe("evolveMemoryDocument", () => {
  test("a creation event makes the document: status by tier, tenant from the metadata", () => {
    expect(fold(recorded())).toMatchObject({
      id,
      tier: "memory",
      status: "active",
      tenant: "acme",
      version: 1,
    });
    expect(fold(recorded("proposal"))).toMatchObject({ tier: "proposal", status: "pending" });
    expect(fold(recorded("handoff"))).toMatchObject({ tier: "handoff", status: "active" });
  });

  test("each later event type changes what it names and moves version and updatedAt", () => {
    const successor = "00000000-0000-4000-8000-000000000043";
    const cases: [StoredEvent, Record<string, unknown>][] = [
      [
        event("memory.revised", { content: "new", tags: ["t"] }, 2),
        { content: "new", tags: ["t"], kind: "note" },
      ],
      [
        event("memory.superseded", { supersededBy: successor, reason: null }, 2),
        { status: "superseded", supersededBy: successor },
      ],
      [event("memory.archived", { reason: null }, 2), { status: "archived" }],
      [event("memory.deleted", { reason: null }, 2), { status: "deleted" }],
      [
        event("memory.invalidated", { invalidAt: "2026-12-01T00:00:00.000Z", reason: null }, 2),
        { invalidAt: "2026-12-01T00:00:00.000Z" },
      ],
      [
        event("memory.verified", { verifiedAt: "2026-11-02T00:00:00.000Z", note: null }, 2),
        { verifiedAt: "2026-11-02T00:00:00.000Z" },
      ],
    ];
    for (const [e, expected] of cases) {
      expect(fold(recorded(), e)).toMatchObject({ ...expected, version: 2, updatedAt: e.meta.recordedAt });
    }
    expect(
      fold(
        recorded(),
        event("memory.archived", { reason: null }, 2),
        event("memory.restored", { reason: null }, 3),
      ),
    ).toMatchObject({ status: "active", version: 3 });
    expect(
      fold(
        recorded(),
        event("memory.invalidated", { invalidAt: "2026-12-01T00:00:00.000Z", reason: null }, 2),
        event("memory.invalidated", { invalidAt: null, reason: null }, 3),
      ),
    ).toMatchObject({ invalidAt: null });
    expect(fold(recorded("proposal"), event("proposal.revised", { title: "t" }, 2))).toMatchObject({
      title: "t",
    });
    expect(fold(recorded("proposal"), event("proposal.promoted", { memoryId: successor }, 2))).toMatchObject({
      status: "promoted",
      promotedTo: successor,
    });
    expect(fold(recorded("proposal"), event("proposal.rejected", { reason: null }, 2))).toMatchObject({
      status: "rejected",
    });
    expect(fold(recorded("handoff"), event("handoff.updated", { content: "c" }, 2))).toMatchObject({
      content: "c",
    });
    expect(fold(recorded("handoff"), event("handoff.completed", { summary: null }, 2))).toMatchObject({
      status: "completed",
    });
  });

  test("covers every memory event type of the catalog", () => {
    // A new event type must be given a case in evolveMemoryDocument (the switch is exhaustive);
    // this list is what the tests above exercise.
    expect(Object.keys(memoryEventSchemas).sort()).toEqual(
      [
        "memory.recorded",
        "memory.revised",
        "memory.superseded",
        "memory.archived",
        "memory.deleted",
        "memory.restored",
        "memory.invalidated",
        "memory.verified",
        "proposal.submitted",
        "proposal.revised",
        "proposal.promoted",
        "proposal.rejected",
        "handoff.opened",
        "handoff.updated",
        "handoff.completed",
      ].sort(),
    );
  });

  test("an event that cannot follow its document is a poison event", () => {
    const attempts = [
      () => fold(event("memory.archived", { reason: null }, 1)),
      () => fold(recorded(), recorded()),
      () => fold(recorded(), event("memory.archived", { reason: null }, 3)),
      () => fold(event("memory.recorded", memoryRecord({ id: randomUUID(), agent: "a" }), 1)),
    ];
    for (const attempt of attempts) {
      try {
        attempt();
        expect.unreachable("should have thrown");
      } catch (error) {
        expect(isPoisonEventError(error)).toBe(true);
      }
    }
  });
});

describe("foldEvents", () => {
  test("dead-letters what cannot apply and applies the rest of the batch", () => {
    const good = recorded();
    const unknownType = { ...event("memory.archived", { reason: null }, 2), type: "memory.teleported" };
    const badData = event("memory.revised", { content: 42 } as never, 2);
    const next = event("memory.archived", { reason: null }, 2);
    const result = foldEvents([good, unknownType, badData, next], new Map());
    expect(result.deadLetters.map((d) => d.reason)).toEqual(["unknown_type", "bad_data"]);
    expect(result.documents.get(id)).toMatchObject({ status: "archived", version: 2 });
  });

  test("tenant settings with synonyms replace the tenant's synonym table; other settings do not", () => {
    const settings = (data: unknown) => ({
      ...event("tenant.settings_changed", data as never, 1),
      streamId: "tenant-acme",
      streamType: "tenant" as const,
    });
    const result = foldEvents(
      [settings({ synonyms: [["a", "b"]] }), settings({ skipPatterns: ["x"] })],
      new Map(),
    );
    expect([...result.synonyms]).toEqual([["acme", [["a", "b"]]]]);
    expect(result.deadLetters).toEqual([]);
  });
});
