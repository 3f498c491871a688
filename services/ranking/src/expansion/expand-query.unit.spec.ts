import { defaultTenantSettings } from "@cairn/contracts";
import { describe, expect, it } from "vitest";
import { normalizeLabel } from "../text/analyze-text.ts";
import {
  type CooccurrenceLookups,
  cooccurrenceExpansions,
  expansionTerms,
  synonymExpansions,
} from "./expand-query.ts";
import { skipReason } from "./skip-rules.ts";

/** An in-memory co-occurrence table built from entity lists, as the projection counts it. */
function lookupsFrom(memories: string[][]): CooccurrenceLookups {
  const counts = new Map<string, number>();
  const labels = new Map<string, string>();
  const pairs = new Map<string, Map<string, number>>();
  for (const entities of memories) {
    for (const e of entities) labels.set(normalizeLabel(e), e);
    const norms = [...new Set(entities.map(normalizeLabel))];
    for (const a of norms) {
      counts.set(a, (counts.get(a) ?? 0) + 1);
      for (const b of norms) {
        if (a === b) continue;
        const row = pairs.get(a) ?? new Map<string, number>();
        row.set(b, (row.get(b) ?? 0) + 1);
        pairs.set(a, row);
      }
    }
  }
  return {
    entities: async (norms) =>
      new Map(
        norms
          .filter((n) => counts.has(n))
          .map((n) => [n, { count: counts.get(n) as number, label: labels.get(n) as string }]),
      ),
    cooccurring: async (norm, limit) =>
      [...(pairs.get(norm) ?? new Map()).entries()]
        .map(([n, count]) => ({ norm: n, count }))
        .sort((a, b) => b.count - a.count)
        .slice(0, limit),
  };
}

const settings = { maxEntities: 3, minCooccurrence: 2, hubCount: 1000 };

describe("cooccurrenceExpansions", () => {
  it("adds the entities that co-occur with an entity of the query", async () => {
    const lookups = lookupsFrom([
      ["Python", "Django"],
      ["Python", "Django", "Postgres"],
      ["Python", "Flask"],
      ["Rust", "Tokio"],
    ]);
    const expansions = await cooccurrenceExpansions("how do we deploy Python services?", lookups, settings);
    expect(expansions.map((e) => e.term)).toEqual(["Django"]);
    expect(expansions[0]).toMatchObject({ source: "cooccurrence", from: "Python" });
  });

  it("needs the minimum co-occurrence and respects the count", async () => {
    const lookups = lookupsFrom([
      ["Python", "Django"],
      ["Python", "Django"],
      ["Python", "Flask"],
      ["Python", "Flask"],
      ["Python", "Celery"],
      ["Python", "Celery"],
    ]);
    const one = await cooccurrenceExpansions("python", lookups, { ...settings, maxEntities: 1 });
    expect(one).toHaveLength(1);
    const strict = await cooccurrenceExpansions("python", lookups, { ...settings, minCooccurrence: 3 });
    expect(strict).toEqual([]);
  });

  it("neither expands from nor to a hub entity", async () => {
    const lookups = lookupsFrom([
      ["Alice", "Django"],
      ["Alice", "Django"],
      ["Alice", "Python"],
      ["Alice", "Python"],
      ["Alice", "Python", "Django"],
    ]);
    const hub = { ...settings, hubCount: 5 };
    expect(await cooccurrenceExpansions("what did Alice say", lookups, hub)).toEqual([]);
    const fromPython = await cooccurrenceExpansions("python", lookups, hub);
    expect(fromPython.map((e) => e.term)).toEqual([]);
    expect((await cooccurrenceExpansions("python", lookups, settings)).map((e) => e.term)).toContain("Alice");
  });

  it("does nothing when the count is 0 or the query names no entity", async () => {
    const lookups = lookupsFrom([
      ["Python", "Django"],
      ["Python", "Django"],
    ]);
    expect(await cooccurrenceExpansions("python", lookups, { ...settings, maxEntities: 0 })).toEqual([]);
    expect(await cooccurrenceExpansions("what happened yesterday", lookups, settings)).toEqual([]);
  });
});

describe("synonymExpansions", () => {
  it("adds the other members of a group named in the query, inflections included", () => {
    const groups = [
      ["k8s", "kubernetes"],
      ["db", "database", "postgres"],
    ];
    expect(synonymExpansions("restart the k8s pods", groups).map((e) => e.term)).toEqual(["kubernetes"]);
    expect(synonymExpansions("which databases do we run", groups).map((e) => e.term)).toEqual([
      "db",
      "postgres",
    ]);
    expect(synonymExpansions("nothing here", groups)).toEqual([]);
  });
  it("deduplicates terms", () => {
    expect(
      expansionTerms([
        { term: "Django", source: "cooccurrence", from: "Python", weight: 1 },
        { term: "django", source: "synonym", from: "x", weight: 1 },
      ]),
    ).toEqual(["Django"]);
  });
});

describe("skipReason", () => {
  const now = new Date("2025-06-01T00:00:00Z");
  it("skips trivial acknowledgements in English and Chinese", () => {
    for (const q of ["ok", "OK!", "got it.", "Thanks", "好的", "好的。", "  yes  "]) {
      expect(skipReason(q, defaultTenantSettings, now), q).toMatchObject({ reason: "skip_pattern" });
    }
    for (const q of ["ok so how do we deploy?", "what did we decide about thanks emails"]) {
      expect(skipReason(q, defaultTenantSettings, now), q).toBeNull();
    }
  });
  it("applies the tenant's patterns, as regular expressions or as text", () => {
    const settings = { ...defaultTenantSettings, skipPatterns: ["ping( me)?", "[broken"] };
    expect(skipReason("ping me", settings, now)).toEqual({ reason: "skip_pattern", pattern: "ping( me)?" });
    expect(skipReason("[broken", settings, now)).toEqual({ reason: "skip_pattern", pattern: "[broken" });
    expect(skipReason("ping the server", settings, now)).toBeNull();
  });
  it("skips everything while a workflow lock holds, and nothing after it expires", () => {
    const settings = {
      ...defaultTenantSettings,
      workflowLock: { reason: "release freeze", expiresAt: "2025-06-01T01:00:00Z" },
    };
    expect(skipReason("how do we deploy", settings, now)).toMatchObject({
      reason: "workflow_lock",
      lockReason: "release freeze",
    });
    expect(skipReason("how do we deploy", settings, new Date("2025-06-01T02:00:00Z"))).toBeNull();
  });
});
