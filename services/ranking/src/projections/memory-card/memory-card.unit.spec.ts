import { defaultTenantSettings, type StoredEvent } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { isDeliberateRead, mergeTenantSettings } from "../signals/signals-projection.ts";
import { evolveMemoryCard, isLive, isVisibleTo, type MemoryCard } from "./memory-card.ts";

const id = "00000000-0000-4000-8000-000000000001";

function event(type: string, data: unknown, at = "2025-01-01T00:00:00Z"): StoredEvent {
  return {
    eventId: "00000000-0000-4000-8000-0000000000ff",
    position: 1,
    streamId: `memory-${id}`,
    streamType: "memory",
    version: 1,
    type,
    schemaVersion: 1,
    data,
    meta: {
      tenant: "t",
      actor: "a",
      correlationId: "c",
      causationId: null,
      traceContext: {},
      recordedAt: at,
    },
  };
}

const recorded = event("memory.recorded", {
  id,
  tier: "memory",
  scope: "agent",
  agent: "alice",
  supersedes: null,
  promotedFrom: null,
  slot: "deploys",
  kind: "fact",
  content: "Deploys run through the canary pipeline.",
  title: "Deploys run through the canary pipeline.",
  tags: [],
  aliases: [],
  keys: ["deploys"],
  entities: [{ text: "Canary", type: "product" }],
  links: [],
  sentiment: 0.2,
  contentHash: "h",
  project: null,
  source: null,
  validFrom: null,
});

describe("evolveMemoryCard", () => {
  it("records terms once (a derived title does not count twice), status, and visibility", () => {
    const card = evolveMemoryCard(undefined, recorded) as MemoryCard;
    expect(card.terms).toEqual(["deploi", "run", "canari", "pipelin"]);
    expect(card.length).toBe(4);
    expect(isLive(card)).toBe(true);
    expect(isVisibleTo(card, { tenant: "t", agent: "alice", role: "agent", primary: false })).toBe(true);
    expect(isVisibleTo(card, { tenant: "t", agent: "bob", role: "agent", primary: false })).toBe(false);
    expect(isVisibleTo(card, { tenant: "t", agent: "bob", role: "agent", primary: true })).toBe(true);
    expect(isVisibleTo(card, { tenant: "u", agent: "alice", role: "agent", primary: true })).toBe(false);
  });
  it("follows revisions, lifecycle and erasure", () => {
    let card = evolveMemoryCard(undefined, recorded) as MemoryCard;
    card = evolveMemoryCard(
      card,
      event("memory.revised", {
        content: "Deploys are blue-green now.",
        title: "Deploys are blue-green now.",
      }),
    ) as MemoryCard;
    expect(card.terms).toEqual(["deploi", "blue", "green"]);
    card = evolveMemoryCard(card, event("memory.archived", { reason: null })) as MemoryCard;
    expect(isLive(card)).toBe(false);
    card = evolveMemoryCard(card, event("memory.restored", { reason: null })) as MemoryCard;
    expect(isLive(card)).toBe(true);
    card = evolveMemoryCard(card, event("memory.purged", { reason: null, runId: null })) as MemoryCard;
    expect(card).toMatchObject({ title: "", entities: [], terms: [], length: 0, keys: ["deploys"] });
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
