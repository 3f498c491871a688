import type { StoredEvent } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { cardWords, evolveCard, type MemoryCard, versionAt } from "./memory-card.ts";

let position = 0;
function event(type: string, data: unknown, version: number, at = "2026-01-01T00:00:00.000Z"): StoredEvent {
  position += 10;
  return {
    eventId: `00000000-0000-4000-8000-${String(position).padStart(12, "0")}`,
    position,
    streamId: "memory-11111111-1111-4111-8111-111111111111",
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
  };
}

const recorded = {
  id: "11111111-1111-4111-8111-111111111111",
  tier: "memory",
  scope: "team",
  agent: "alice",
  supersedes: null,
  promotedFrom: null,
  slot: "cache-rules",
  kind: "fact",
  content: "Cache keys expire after one hour. Warm caches survive deploys.",
  title: "Cache rules",
  tags: ["cache"],
  aliases: [],
  keys: ["caching"],
  entities: [{ text: "Redis", type: "product" }],
  links: [],
  sentiment: 0.1,
  contentHash: "sha256:x",
  project: null,
  source: null,
  validFrom: null,
};

describe("memory cards", () => {
  it("follow a memory's lifecycle without keeping its text", () => {
    let card = evolveCard(undefined, event("memory.recorded", recorded, 1)) as MemoryCard;
    expect(card).toMatchObject({
      status: "active",
      slot: "cache-rules",
      level: 1,
      entities: ["redis"],
      version: 1,
    });
    expect(JSON.stringify(card)).not.toContain("expire after");
    expect(cardWords(card)).toEqual(expect.arrayContaining(["cache", "rules", "keys", "expire", "warm"]));
    card = evolveCard(
      card,
      event("memory.revised", { content: "Cache keys expire after a day." }, 2),
    ) as MemoryCard;
    expect(card.contentWords).toEqual(["cache", "keys", "expire", "day"]);
    expect(card.titleWords).toEqual(["cache", "rules"]);
    card = evolveCard(
      card,
      event("memory.deleted", { reason: null }, 3, "2026-02-01T00:00:00.000Z"),
    ) as MemoryCard;
    expect(card).toMatchObject({ status: "deleted", statusChangedAt: "2026-02-01T00:00:00.000Z" });
    card = evolveCard(card, event("memory.purged", { reason: null, runId: null }, 4)) as MemoryCard;
    expect(card).toMatchObject({ contentWords: [], titleWords: [], entities: [], sketch: [], version: 4 });
    expect(card.purgedAt).not.toBeNull();
    expect(versionAt(card, card.positions[1] as number)).toBe(2);
    expect(versionAt(card, 0)).toBe(0);
    expect(versionAt(card, Number.MAX_SAFE_INTEGER)).toBe(4);
  });

  it("carries a consolidation's level and sources, and ignores changes before creation", () => {
    const c = evolveCard(
      undefined,
      event("memory.recorded", { ...recorded, level: 3, consolidatedFrom: ["a", "b"] }, 1),
    ) as MemoryCard;
    expect(c).toMatchObject({ level: 3, consolidatedFrom: ["a", "b"] });
    expect(evolveCard(undefined, event("memory.archived", { reason: null }, 2))).toBeUndefined();
  });
});
