import { randomUUID } from "node:crypto";
import { type ContentKeyState, newContentKey, type StoredEvent, sealMemoryFields } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { createMaintenanceView } from "./maintenance-view.ts";

function event(
  streamId: string,
  type: string,
  data: unknown,
  position: number,
  tenant = "acme",
): StoredEvent {
  return {
    eventId: randomUUID(),
    position,
    streamId,
    streamType: streamId.startsWith("memory-")
      ? "memory"
      : streamId.startsWith("tenant-")
        ? "tenant"
        : "maintenance",
    version: 1,
    type,
    schemaVersion: 1,
    data,
    meta: {
      tenant,
      actor: "a",
      correlationId: "c",
      causationId: null,
      traceContext: {},
      recordedAt: "2026-01-01T00:00:00.000Z",
    },
  };
}

const body = (id: string, content: string) => ({
  id,
  tier: "memory",
  scope: "team",
  agent: "alice",
  supersedes: null,
  promotedFrom: null,
  slot: `s-${id.slice(0, 4)}`,
  kind: "fact",
  content,
  title: "t",
  tags: [],
  aliases: [],
  keys: [],
  entities: [],
  links: [],
  sentiment: 0,
  contentHash: "h",
  project: null,
  source: null,
  validFrom: null,
});

describe("the maintenance view", () => {
  it("reads the log in batches, opens sealed text, and keeps settings and last runs per tenant", async () => {
    const a = randomUUID();
    const b = randomUUID();
    const key = newContentKey();
    const wrongKey = newContentKey();
    const log = [
      event(`memory-${a}`, "memory.recorded", sealMemoryFields(body(a, "alpha words here"), key, a), 1),
      // Sealed with a key that is not the memory's: its text counts as empty, the view goes on.
      event(`memory-${b}`, "memory.recorded", sealMemoryFields(body(b, "beta words here"), wrongKey, b), 2),
      event(
        "tenant-acme",
        "tenant.settings_changed",
        { synonyms: [["x", "y"]], maintenance: { gc: { apply: true } } },
        3,
      ),
      event(
        `maintenance-${randomUUID()}`,
        "maintenance.run_recorded",
        {
          runId: randomUUID(),
          job: "gc",
          mode: "apply",
          trigger: "schedule",
          outcome: "ok",
          startedAt: "s",
          finishedAt: "f",
        },
        4,
      ),
    ];
    const unreadable: string[] = [];
    const view = createMaintenanceView({
      log: {
        readAll: async ({ after, limit }) => log.filter((e) => e.position > after).slice(0, limit),
        lastCommittedPosition: async () => Math.max(0, ...log.map((e) => e.position)),
      },
      keyring: {
        keysFor: async (ids) =>
          new Map<string, ContentKeyState>(ids.map((id) => [id, { state: "active", key }] as const)),
      },
      batchSize: 2,
      onUnreadable: (e) => unreadable.push(e.streamId),
    });
    expect(await view.catchUp()).toBe(4);
    expect(view.tenants()).toEqual(["acme"]);
    expect(view.card(a)?.contentWords).toEqual(["alpha", "words"]);
    expect(view.card(b)?.contentWords).toEqual([]);
    expect(unreadable).toEqual([`memory-${b}`]);
    expect(view.synonyms("acme")).toEqual([["x", "y"]]);
    expect(view.maintenanceSettings("acme")).toEqual({ gc: { apply: true } });
    expect(view.lastRun("acme", "gc", "schedule")).toMatchObject({ outcome: "ok" });
    expect(view.lastRun("acme", "gc", "manual")).toBeUndefined();
  });

  it("catches up to everything committed before the call, even while an older transaction holds it back", async () => {
    const settings = event(
      "tenant-acme",
      "tenant.settings_changed",
      { maintenance: { dedup: { everyMinutes: 1 } } },
      1,
    );
    // Committed, but below the readers' horizon only after two more reads.
    let heldBackReads = 2;
    const view = createMaintenanceView({
      log: {
        readAll: async ({ after }) => {
          if (heldBackReads > 0) {
            heldBackReads -= 1;
            return [];
          }
          return [settings].filter((e) => e.position > after);
        },
        lastCommittedPosition: async () => 1,
      },
      keyring: { keysFor: async () => new Map() },
    });
    expect(await view.catchUp()).toBe(1);
    expect(view.maintenanceSettings("acme")).toEqual({ dedup: { everyMinutes: 1 } });
  });
});
