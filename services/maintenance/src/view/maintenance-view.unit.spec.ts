import { randomUUID } from "node:crypto";
import type { DecodedEvent } from "@cairn/contracts";
import { eventLine, memoryRecord, storedEvent } from "@cairn/memory-model/testing";
import { describe, expect, it } from "vitest";
import { foldViewEvents, snapshotOf, type TenantState } from "./maintenance-view.ts";
import type { MemoryCard } from "./memory-card.ts";

describe("the maintenance view's fold", () => {
  it("keeps a card per memory, the tenant's settings and its last runs per job and trigger", () => {
    const a = randomUUID();
    const memory = eventLine().stream(a);
    const events = [
      memory.next("memory.recorded", memoryRecord({ id: a, agent: "alice", content: "alpha words here" })),
      storedEvent(
        "tenant.settings_changed",
        { synonyms: [["x", "y"]], maintenance: { gc: { apply: true } } },
        { streamId: "tenant-acme", version: 1, position: 10 },
      ),
      storedEvent(
        "maintenance.run_recorded",
        {
          tenant: "acme",
          runId: randomUUID(),
          job: "gc",
          mode: "apply",
          trigger: "schedule",
          requestedBy: "maintenance",
          startedAt: "2026-01-01T00:00:00.000Z",
          finishedAt: "2026-01-01T00:00:01.000Z",
          outcome: "ok",
          examined: 0,
          actions: [],
          truncatedActions: 0,
          params: {},
          error: null,
          position: null,
        },
        { streamId: `maintenance-${randomUUID()}`, version: 1, position: 11 },
      ),
      memory.next("memory.archived", { reason: null }),
    ] as DecodedEvent[];
    const cards = new Map<string, MemoryCard>();
    const tenants = new Map<string, TenantState>();
    const changed = foldViewEvents(events, cards, tenants, []);
    expect([...changed.cards]).toEqual([a]);
    expect([...changed.tenants]).toEqual(["acme"]);
    const view = snapshotOf("acme", 12, [...cards.values()], tenants.get("acme"));
    expect(view.card(a)).toMatchObject({ status: "archived", version: 2, contentWords: ["alpha", "words"] });
    expect(view.synonyms()).toEqual([["x", "y"]]);
    expect(view.maintenanceSettings()).toEqual({ gc: { apply: true } });
    expect(view.lastRun("gc", "schedule")).toMatchObject({ outcome: "ok" });
    expect(view.lastRun("gc", "manual")).toBeUndefined();
  });

  it("refuses an event that cannot follow its card, and applies the rest", () => {
    const orphan = eventLine().stream(randomUUID());
    const refused: { reason: string }[] = [];
    const cards = new Map<string, MemoryCard>();
    foldViewEvents(
      [orphan.next("memory.archived", { reason: null })] as DecodedEvent[],
      cards,
      new Map(),
      refused as never,
    );
    expect(refused.map((r) => r.reason)).toEqual(["cannot_apply"]);
    expect(cards.size).toBe(0);
  });
});
