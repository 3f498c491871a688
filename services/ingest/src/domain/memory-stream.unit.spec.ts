import { CairnError, type CairnEvent, type Tier } from "@cairn/contracts";
import type { MemoryEvent } from "@cairn/memory-model";
import { eventLine, memoryRecord } from "@cairn/memory-model/testing";
import { describe, expect, test } from "vitest";
import {
  decideMemory,
  foldMemory,
  type MemoryDecision,
  type MemoryRecord,
  type MemoryState,
} from "./memory-stream.ts";

const id = "6f1c1b2e-8d5f-4a43-9a57-3c1d1e2f3a4b";
const other = "0b7c6d9e-1f2a-4b3c-8d4e-5f6a7b8c9d0e";

function record(tier: Tier = "memory"): MemoryRecord {
  return memoryRecord({
    id,
    tier,
    agent: "alice",
    slot: "package-manager",
    kind: "decision",
    content: "pnpm",
    title: "pnpm",
    contentHash: "sha256:x",
  });
}

const recordedFor = {
  memory: "memory.recorded",
  proposal: "proposal.submitted",
  handoff: "handoff.opened",
} as const;

/** Given these events, when deciding, then these events (or this refusal). */
function given(...events: CairnEvent[]) {
  const stream = eventLine().stream(id);
  const stored = events.map((e, i) => stream.next(e.type, e.data, `2026-01-0${i + 1}T00:00:00.000Z`));
  const state: MemoryState = foldMemory(stored as MemoryEvent[]);
  return {
    state,
    when(decision: MemoryDecision) {
      const decide = () => decideMemory(state, decision);
      return {
        thenEvents: (...expected: CairnEvent[]) => expect(decide()).toEqual(expected),
        thenRefused(code: CairnError["code"] = "illegal_transition") {
          let error: unknown;
          try {
            decide();
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(CairnError);
          expect((error as CairnError).code).toBe(code);
        },
      };
    },
  };
}

const recorded = (tier: Tier = "memory"): CairnEvent =>
  ({ type: recordedFor[tier], data: record(tier) }) as CairnEvent;
const reason = { reason: null };

describe("memory stream: evolve", () => {
  test("a recorded memory is active at version 1 with the tenant from the metadata", () => {
    const { state } = given(recorded());
    expect(state).toMatchObject({
      exists: true,
      position: 1,
      doc: {
        id,
        status: "active",
        tier: "memory",
        tenant: "acme",
        version: 1,
        createdAt: "2026-01-01T00:00:00.000Z",
      },
    });
  });

  test("each tier starts in its own status", () => {
    expect(given(recorded("proposal")).state).toMatchObject({ doc: { status: "pending" } });
    expect(given(recorded("handoff")).state).toMatchObject({ doc: { status: "active", tier: "handoff" } });
  });

  test("revisions, lifecycle events and time fields fold into the document", () => {
    const { state } = given(
      recorded(),
      { type: "memory.revised", data: { content: "pnpm 10", title: "pnpm 10" } },
      { type: "memory.invalidated", data: { invalidAt: "2030-01-01T00:00:00.000Z", reason: null } },
      { type: "memory.verified", data: { verifiedAt: "2026-02-01T00:00:00.000Z", note: null } },
      { type: "memory.superseded", data: { supersededBy: other, reason: null } },
    );
    expect(state).toMatchObject({
      doc: {
        content: "pnpm 10",
        invalidAt: "2030-01-01T00:00:00.000Z",
        verifiedAt: "2026-02-01T00:00:00.000Z",
        status: "superseded",
        supersededBy: other,
        version: 5,
        updatedAt: "2026-01-05T00:00:00.000Z",
      },
    });
  });
});

describe("memory stream: decide", () => {
  test("record on a new stream; not twice", () => {
    given().when({ type: "record", record: record() }).thenEvents(recorded());
    given()
      .when({ type: "record", record: record("proposal") })
      .thenEvents(recorded("proposal"));
    given(recorded()).when({ type: "record", record: record() }).thenRefused();
  });

  test("anything but record on a missing stream is not found", () => {
    given()
      .when({ type: "archive", ...reason })
      .thenRefused("not_found");
  });

  test("revise records only what differs, with the tier's event type", () => {
    given(recorded())
      .when({ type: "revise", tier: "memory", changes: { content: "pnpm", title: "New" } })
      .thenEvents({ type: "memory.revised", data: { title: "New" } });
    given(recorded())
      .when({ type: "revise", tier: "memory", changes: { content: "pnpm" } })
      .thenEvents();
    given(recorded("proposal"))
      .when({ type: "revise", tier: "proposal", changes: { content: "yarn" } })
      .thenEvents({ type: "proposal.revised", data: { content: "yarn" } });
    given(recorded("handoff"))
      .when({ type: "revise", tier: "handoff", changes: { content: "step 2" } })
      .thenEvents({ type: "handoff.updated", data: { content: "step 2" } });
  });

  test("revise is refused on the wrong tier and on final states", () => {
    given(recorded("proposal"))
      .when({ type: "revise", tier: "memory", changes: { content: "x" } })
      .thenRefused();
    given(recorded(), { type: "memory.archived", data: reason })
      .when({ type: "revise", tier: "memory", changes: { content: "x" } })
      .thenRefused();
    given(recorded("handoff"), { type: "handoff.completed", data: { summary: null } })
      .when({ type: "revise", tier: "handoff", changes: { content: "x" } })
      .thenRefused();
    given(recorded("proposal"), { type: "proposal.rejected", data: reason })
      .when({ type: "revise", tier: "proposal", changes: { content: "x" } })
      .thenRefused();
  });

  test("memory: active → superseded | archived | deleted", () => {
    given(recorded())
      .when({ type: "supersede", supersededBy: other, reason: "newer" })
      .thenEvents({ type: "memory.superseded", data: { supersededBy: other, reason: "newer" } });
    given(recorded())
      .when({ type: "archive", ...reason })
      .thenEvents({ type: "memory.archived", data: reason });
    given(recorded())
      .when({ type: "delete", ...reason })
      .thenEvents({ type: "memory.deleted", data: reason });
  });

  test("memory: archived and deleted are restored; superseded is not", () => {
    given(recorded(), { type: "memory.archived", data: reason })
      .when({ type: "restore", ...reason })
      .thenEvents({ type: "memory.restored", data: reason });
    given(recorded(), { type: "memory.deleted", data: reason })
      .when({ type: "restore", ...reason })
      .thenEvents({ type: "memory.restored", data: reason });
    given(recorded(), { type: "memory.superseded", data: { supersededBy: other, reason: null } })
      .when({ type: "restore", ...reason })
      .thenRefused();
    given(
      recorded(),
      { type: "memory.superseded", data: { supersededBy: other, reason: null } },
      {
        type: "memory.deleted",
        data: reason,
      },
    )
      .when({ type: "restore", ...reason })
      .thenRefused();
    given(recorded())
      .when({ type: "restore", ...reason })
      .thenRefused();
  });

  test("memory: refused transitions from non-active states", () => {
    const archived = [recorded(), { type: "memory.archived", data: reason }] as CairnEvent[];
    given(...archived)
      .when({ type: "archive", ...reason })
      .thenRefused();
    given(...archived)
      .when({ type: "supersede", supersededBy: other, reason: null })
      .thenRefused();
    given(...archived)
      .when({ type: "verify", verifiedAt: "2026-01-01T00:00:00.000Z", note: null })
      .thenRefused();
    given(...archived)
      .when({ type: "delete", ...reason })
      .thenEvents({ type: "memory.deleted", data: reason });
    const deleted = [recorded(), { type: "memory.deleted", data: reason }] as CairnEvent[];
    given(...deleted)
      .when({ type: "delete", ...reason })
      .thenRefused();
    given(...deleted)
      .when({ type: "invalidate", invalidAt: null, reason: null })
      .thenRefused();
  });

  test("memory: invalidate sets and clears the expiry; the same value writes nothing", () => {
    const at = "2030-01-01T00:00:00.000Z";
    given(recorded())
      .when({ type: "invalidate", invalidAt: at, reason: "ends" })
      .thenEvents({ type: "memory.invalidated", data: { invalidAt: at, reason: "ends" } });
    given(recorded(), { type: "memory.invalidated", data: { invalidAt: at, reason: null } })
      .when({ type: "invalidate", invalidAt: null, reason: null })
      .thenEvents({ type: "memory.invalidated", data: { invalidAt: null, reason: null } });
    given(recorded()).when({ type: "invalidate", invalidAt: null, reason: null }).thenEvents();
  });

  test("memory commands are refused on proposals and handoffs", () => {
    for (const tier of ["proposal", "handoff"] as const) {
      given(recorded(tier))
        .when({ type: "archive", ...reason })
        .thenRefused();
      given(recorded(tier))
        .when({ type: "delete", ...reason })
        .thenRefused();
      given(recorded(tier)).when({ type: "supersede", supersededBy: other, reason: null }).thenRefused();
    }
  });

  test("proposal: pending → promoted | rejected, then final", () => {
    given(recorded("proposal"))
      .when({ type: "promote", memoryId: other })
      .thenEvents({ type: "proposal.promoted", data: { memoryId: other } });
    given(recorded("proposal"))
      .when({ type: "reject", ...reason })
      .thenEvents({ type: "proposal.rejected", data: reason });
    const promoted = [
      recorded("proposal"),
      { type: "proposal.promoted", data: { memoryId: other } },
    ] as CairnEvent[];
    given(...promoted)
      .when({ type: "promote", memoryId: other })
      .thenRefused();
    given(...promoted)
      .when({ type: "reject", ...reason })
      .thenRefused();
    given(recorded()).when({ type: "promote", memoryId: other }).thenRefused();
    expect(given(...promoted).state).toMatchObject({ doc: { status: "promoted", promotedTo: other } });
  });

  test("handoff: active → completed, then final", () => {
    given(recorded("handoff"))
      .when({ type: "complete", summary: "done" })
      .thenEvents({ type: "handoff.completed", data: { summary: "done" } });
    given(recorded("handoff"), { type: "handoff.completed", data: { summary: null } })
      .when({ type: "complete", summary: null })
      .thenRefused();
    given(recorded()).when({ type: "complete", summary: null }).thenRefused();
  });
});
