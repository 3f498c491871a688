import type { EventData } from "@cairn/contracts";
import { MemoryFoldError } from "@cairn/memory-model";
import { eventLine } from "@cairn/memory-model/testing";
import { describe, expect, it } from "vitest";
import { cardWords, evolveCard, levelOf, versionAt } from "./memory-card.ts";

const id = "11111111-1111-4111-8111-111111111111";
const line = eventLine();

const recorded: EventData<"memory.recorded"> = {
  id,
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
    const s = line.stream(id);
    let card = evolveCard(undefined, s.next("memory.recorded", recorded));
    expect(card).toMatchObject({ status: "active", slot: "cache-rules", entityWords: ["redis"], version: 1 });
    expect(levelOf(card)).toBe(1);
    expect(JSON.stringify(card)).not.toContain("expire after");
    expect(cardWords(card)).toEqual(expect.arrayContaining(["cache", "rules", "keys", "expire", "warm"]));
    card = evolveCard(card, s.next("memory.revised", { content: "Cache keys expire after a day." }));
    expect(card.contentWords).toEqual(["cache", "keys", "expire", "day"]);
    expect(card.titleWords).toEqual(["cache", "rules"]);
    card = evolveCard(card, s.next("memory.deleted", { reason: null }, "2026-02-01T00:00:00.000Z"));
    expect(card).toMatchObject({ status: "deleted", statusChangedAt: "2026-02-01T00:00:00.000Z" });
    card = evolveCard(card, s.next("memory.purged", { reason: null, runId: null }));
    expect(card).toMatchObject({ contentWords: [], titleWords: [], entityWords: [], sketch: [], version: 4 });
    expect(card.purgedAt).not.toBeNull();
    expect(versionAt(card, card.positions[1] as number)).toBe(2);
    expect(versionAt(card, 0)).toBe(0);
    expect(versionAt(card, Number.MAX_SAFE_INTEGER)).toBe(4);
  });

  it("carries a consolidation's level and sources, and refuses changes before creation", () => {
    const sources = ["00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"];
    const c = evolveCard(
      undefined,
      line.stream(id).next("memory.recorded", { ...recorded, level: 3, consolidatedFrom: sources }),
    );
    expect(c).toMatchObject({ level: 3, consolidatedFrom: sources });
    const other = line.stream("22222222-2222-4222-8222-222222222222");
    expect(() => evolveCard(undefined, other.next("memory.archived", { reason: null }))).toThrow(
      MemoryFoldError,
    );
  });
});
