import { defaultTenantSettings } from "@cairn/contracts";
import { eventLine, memoryRecord } from "@cairn/memory-model/testing";
import { describe, expect, it } from "vitest";
import { isDeliberateRead, mergeTenantSettings } from "../signals/signals-projection.ts";
import { evolveMemoryCard, isLive, isVisibleTo } from "./memory-card.ts";

const id = "00000000-0000-4000-8000-000000000001";

function stream() {
  const s = eventLine().stream(id, { tenant: "t", actor: "a" });
  const recorded = s.next(
    "memory.recorded",
    memoryRecord({
      id,
      scope: "agent",
      agent: "alice",
      slot: "deploys",
      kind: "fact",
      content: "Deploys run through the canary pipeline.",
      title: "Deploys run through the canary pipeline.",
      keys: ["deploys"],
      entities: [{ text: "Canary", type: "product" }],
      sentiment: 0.2,
    }),
  );
  return { s, recorded };
}

describe("evolveMemoryCard", () => {
  it("records terms once (a derived title does not count twice), status, and visibility", () => {
    const card = evolveMemoryCard(undefined, stream().recorded);
    expect(card.terms).toEqual(["deploy", "run", "canari", "pipelin"]);
    expect(card.length).toBe(4);
    expect(isLive(card)).toBe(true);
    expect(isVisibleTo(card, { tenant: "t", agent: "alice", role: "agent", primary: false })).toBe(true);
    expect(isVisibleTo(card, { tenant: "t", agent: "bob", role: "agent", primary: false })).toBe(false);
    expect(isVisibleTo(card, { tenant: "t", agent: "bob", role: "agent", primary: true })).toBe(true);
    expect(isVisibleTo(card, { tenant: "u", agent: "alice", role: "agent", primary: true })).toBe(false);
  });
  it("follows revisions, lifecycle and erasure", () => {
    const { s, recorded } = stream();
    let card = evolveMemoryCard(undefined, recorded);
    card = evolveMemoryCard(
      card,
      s.next("memory.revised", {
        content: "Deploys are blue-green now.",
        title: "Deploys are blue-green now.",
      }),
    );
    expect(card.terms).toEqual(["deploy", "blue", "green"]);
    expect(card.content).toBe("");
    card = evolveMemoryCard(card, s.next("memory.revised", { title: "Deploys" }));
    expect(card.terms).toEqual(["deploy", "blue", "green"]);
    card = evolveMemoryCard(card, s.next("memory.archived", { reason: null }));
    expect(isLive(card)).toBe(false);
    card = evolveMemoryCard(card, s.next("memory.restored", { reason: null }));
    expect(isLive(card)).toBe(true);
    card = evolveMemoryCard(card, s.next("memory.deleted", { reason: null }));
    card = evolveMemoryCard(card, s.next("memory.purged", { reason: null, runId: null }));
    expect(card).toMatchObject({ title: "", entities: [], terms: [], length: 0, keys: ["deploys"] });
  });

  it("keeps the cues a question is matched on: the speaker, and the times named at the memory's time", () => {
    const memoryId = "00000000-0000-4000-8000-000000000002";
    const s = eventLine().stream(memoryId, { tenant: "t", actor: "a" });
    const content = "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.";
    let card = evolveMemoryCard(
      undefined,
      s.next(
        "memory.recorded",
        memoryRecord({ id: memoryId, agent: "bench", content, validFrom: "2023-05-08T13:56:00.000Z" }),
        "2026-01-01T00:00:00.000Z",
      ),
    );
    // "Yesterday" of the memory's own time, not of when it was written down.
    expect(card.cues).toEqual({
      speaker: "Caroline",
      times: [{ start: Date.parse("2023-05-07T00:00:00Z"), end: Date.parse("2023-05-08T00:00:00Z") }],
    });
    card = evolveMemoryCard(card, s.next("memory.revised", { title: "Support group" }));
    expect(card.cues?.speaker).toBe("Caroline");
    card = evolveMemoryCard(card, s.next("memory.revised", { content: "The group is small and kind." }));
    expect(card.cues).toEqual({ speaker: null, times: [] });
    card = evolveMemoryCard(card, s.next("memory.deleted", { reason: null }));
    card = evolveMemoryCard(card, s.next("memory.purged", { reason: null, runId: null }));
    expect(card.cues).toEqual({ speaker: null, times: [] });
  });
});

describe("signals rules", () => {
  it("counts opening a memory or reaching it through a key as a deliberate read", () => {
    expect(isDeliberateRead({ viaKey: null, query: null })).toBe(true);
    expect(isDeliberateRead({ viaKey: id, query: "x" })).toBe(true);
    expect(isDeliberateRead({ viaKey: null, query: "key:deploys" })).toBe(true);
    expect(isDeliberateRead({ viaKey: null, query: "how do we deploy" })).toBe(false);
  });
  it("merges a partial settings change, keeping what it leaves out", () => {
    const lock = { reason: "freeze", expiresAt: "2025-01-01T00:00:00Z" };
    const locked = mergeTenantSettings(defaultTenantSettings, { workflowLock: lock });
    expect(locked).toMatchObject({ workflowLock: lock, skipPatterns: [] });
    const unlocked = mergeTenantSettings(locked, { workflowLock: null, synonyms: [["a", "b"]] });
    expect(unlocked).toMatchObject({ workflowLock: null, synonyms: [["a", "b"]] });
    expect(unlocked.rankingWeights).toEqual(defaultTenantSettings.rankingWeights);
  });
});
