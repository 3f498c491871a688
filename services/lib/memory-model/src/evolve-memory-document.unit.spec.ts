import { randomUUID } from "node:crypto";
import {
  MemoryDocumentSchema,
  memoryErasureEventSchemas,
  memoryEventSchemas,
  type Tier,
} from "@cairn/contracts";
import { describe, expect, test } from "vitest";
import { evolveMemoryDocument, foldMemoryDocument, memoryFoldVersion } from "./evolve-memory-document.ts";
import { evolveStoredDocument } from "./evolve-stored-document.ts";
import { type MemoryEvent, memoryEventTypes, recordedEventType } from "./memory-events.ts";
import { isMemoryFoldError } from "./memory-fold-error.ts";
import { eventLine, memoryRecord } from "./testing/memory-event-builders.ts";

const id = "00000000-0000-4000-8000-000000000042";
const successor = "00000000-0000-4000-8000-000000000043";

function stream(tier: Tier = "memory") {
  const s = eventLine().stream(id);
  const first = s.next(recordedEventType[tier], memoryRecord({ id, agent: "alice", tier, content: "hello" }));
  return { s, first };
}

type Line = ReturnType<typeof stream>["s"];

describe("evolveMemoryDocument", () => {
  test("a creation event makes the document: status by tier, tenant from the metadata", () => {
    for (const [tier, status] of [
      ["memory", "active"],
      ["proposal", "pending"],
      ["handoff", "active"],
    ] as const) {
      const { first } = stream(tier);
      expect(foldMemoryDocument([first])).toMatchObject({ id, tier, status, tenant: "acme", version: 1 });
    }
  });

  test("each later event changes what it names and moves version and updatedAt", () => {
    const at = "2026-11-05T00:00:00.000Z";
    const cases = [
      (s: Line) => [
        s.next("memory.revised", { content: "new", tags: ["t"] }, at),
        { content: "new", tags: ["t"], kind: "note" },
      ],
      (s: Line) => [
        s.next("memory.superseded", { supersededBy: successor, reason: null }, at),
        { status: "superseded", supersededBy: successor },
      ],
      (s: Line) => [s.next("memory.archived", { reason: null }, at), { status: "archived" }],
      (s: Line) => [s.next("memory.deleted", { reason: null }, at), { status: "deleted" }],
      (s: Line) => [
        s.next("memory.invalidated", { invalidAt: "2026-12-01T00:00:00.000Z", reason: null }, at),
        { invalidAt: "2026-12-01T00:00:00.000Z" },
      ],
      (s: Line) => [
        s.next("memory.verified", { verifiedAt: "2026-11-02T00:00:00.000Z", note: null }, at),
        { verifiedAt: "2026-11-02T00:00:00.000Z" },
      ],
    ] as const;
    for (const make of cases) {
      const { s, first } = stream();
      const [event, expected] = make(s);
      expect(foldMemoryDocument([first, event as never])).toMatchObject({
        ...(expected as object),
        version: 2,
        updatedAt: at,
      });
    }
    // Two steps of each tier's lifecycle, folded after its creation.
    const after = (tier: Tier, events: (s: Line) => MemoryEvent[]) => {
      const { s, first } = stream(tier);
      return foldMemoryDocument([first, ...events(s)]);
    };
    expect(
      after("memory", (s) => [
        s.next("memory.archived", { reason: null }),
        s.next("memory.restored", { reason: null }),
      ]),
    ).toMatchObject({ status: "active", version: 3 });
    expect(
      after("proposal", (s) => [
        s.next("proposal.revised", { title: "t" }),
        s.next("proposal.promoted", { memoryId: successor }),
      ]),
    ).toMatchObject({ title: "t", status: "promoted", promotedTo: successor });
    expect(after("proposal", (s) => [s.next("proposal.rejected", { reason: null })])).toMatchObject({
      status: "rejected",
    });
    expect(
      after("handoff", (s) => [
        s.next("handoff.updated", { content: "c" }),
        s.next("handoff.completed", { summary: null }),
      ]),
    ).toMatchObject({ content: "c", status: "completed" });
  });

  test("a purge empties the text for good and keeps the labels", () => {
    const { s, first } = stream();
    const doc = foldMemoryDocument([
      first,
      s.next("memory.deleted", { reason: null }),
      s.next("memory.purged", { reason: "erasure", runId: null }, "2026-11-09T00:00:00.000Z"),
    ]);
    expect(doc).toMatchObject({ content: "", title: "", entities: [], status: "deleted" });
    expect(doc?.purgedAt).toBe("2026-11-09T00:00:00.000Z");
    expect(doc?.slot).toBe(first.data.slot);
  });

  test("the closed set of memory events is the catalog's", () => {
    expect([...memoryEventTypes].sort()).toEqual(
      [...Object.keys(memoryEventSchemas), ...Object.keys(memoryErasureEventSchemas)].sort(),
    );
  });

  test("an event that cannot follow its document is refused with a fold error", () => {
    const line = eventLine();
    const other = line.stream(randomUUID());
    const attempts = [
      () => foldMemoryDocument([other.next("memory.archived", { reason: null })]),
      () => {
        const { first } = stream();
        return evolveMemoryDocument(foldMemoryDocument([first]), first);
      },
      () => {
        const { s, first } = stream();
        s.next("memory.archived", { reason: null });
        return foldMemoryDocument([first, s.next("memory.archived", { reason: null })]);
      },
      () =>
        foldMemoryDocument([other.next("memory.recorded", memoryRecord({ id: randomUUID(), agent: "a" }))]),
    ];
    for (const attempt of attempts) {
      try {
        attempt();
        expect.unreachable("should have thrown");
      } catch (error) {
        expect(isMemoryFoldError(error)).toBe(true);
      }
    }
  });
});

describe("evolveStoredDocument", () => {
  test("hands back the content an event brought and stores the document without it", () => {
    const { s, first } = stream();
    const created = evolveStoredDocument(null, first);
    expect(created.content).toBe("hello");
    expect(created.document.content).toBe("");
    const retitled = evolveStoredDocument(created.document, s.next("memory.revised", { title: "new" }));
    expect(retitled.content).toBeNull();
    expect(retitled.document.title).toBe("new");
    const rewritten = evolveStoredDocument(retitled.document, s.next("memory.revised", { content: "again" }));
    expect(rewritten.content).toBe("again");
    const deleted = evolveStoredDocument(rewritten.document, s.next("memory.deleted", { reason: null }));
    const purged = evolveStoredDocument(
      deleted.document,
      s.next("memory.purged", { reason: null, runId: null }),
    );
    expect(purged.content).toBe("");
    expect(purged.document.purgedAt).not.toBeNull();
  });
});

describe("memoryFoldVersion", () => {
  test("names the document this fold makes: a change of its fields or events must raise it", () => {
    // Folded documents are kept by that version (ingest's stream snapshots). When this test
    // fails, raise memoryFoldVersion and write here what the fold now makes.
    expect({
      version: memoryFoldVersion,
      fields: Object.keys(MemoryDocumentSchema.shape).sort(),
      events: [...memoryEventTypes].sort(),
    }).toEqual({
      version: 1,
      fields: [
        "agent",
        "aliases",
        "consolidatedFrom",
        "content",
        "contentHash",
        "createdAt",
        "entities",
        "episode",
        "id",
        "invalidAt",
        "keys",
        "kind",
        "level",
        "links",
        "project",
        "promotedFrom",
        "promotedTo",
        "purgedAt",
        "scope",
        "sentiment",
        "slot",
        "source",
        "status",
        "supersededBy",
        "supersedes",
        "tags",
        "tenant",
        "tier",
        "title",
        "updatedAt",
        "validFrom",
        "verifiedAt",
        "version",
      ],
      events: [
        "handoff.completed",
        "handoff.opened",
        "handoff.updated",
        "memory.archived",
        "memory.deleted",
        "memory.invalidated",
        "memory.purged",
        "memory.recorded",
        "memory.restored",
        "memory.revised",
        "memory.superseded",
        "memory.verified",
        "proposal.promoted",
        "proposal.rejected",
        "proposal.revised",
        "proposal.submitted",
      ],
    });
  });
});
