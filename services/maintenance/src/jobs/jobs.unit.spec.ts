// The decisions of the jobs, on cards and signals made up for the purpose.
import { type MemorySignals, noMemorySignals } from "@cairn/contracts";
import { eventLine, memoryRecord } from "@cairn/memory-model/testing";
import { describe, expect, it } from "vitest";
import { extractiveSummary } from "../summary/extractive-summary.ts";
import { distinctTopicWords, shingles, sketch } from "../text/text-features.ts";
import { evolveCard, type MemoryCard } from "../view/memory-card.ts";
import { groupSimilar } from "./consolidation.ts";
import { keepOf, textDuplicates } from "./dedup.ts";
import { decideForgetting } from "./forgetting.ts";
import { purgeable } from "./gc.ts";
import { discoverSynonyms } from "./synonyms.ts";

let n = 0;
function card(
  content: string,
  extra: Partial<Omit<MemoryCard, "entities">> & { entities?: string[] } = {},
): MemoryCard {
  n += 1;
  const { entities = [], ...rest } = extra;
  const line = eventLine(n * 100).stream(`00000000-0000-4000-8000-${String(n).padStart(12, "0")}`);
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const base = evolveCard(
    undefined,
    line.next(
      "memory.recorded",
      memoryRecord({
        id,
        agent: "alice",
        slot: `slot-${n}`,
        kind: "fact",
        content,
        contentHash: `h${n}`,
        entities: entities.map((text) => ({ text, type: "product" as const })),
      }),
      `2026-01-${String((n % 28) + 1).padStart(2, "0")}T00:00:00.000Z`,
    ),
  );
  return {
    ...base,
    updatedAt: "2026-01-01T00:00:00.000Z",
    statusChangedAt: "2026-01-01T00:00:00.000Z",
    positions: [n],
    contentWords: distinctTopicWords(content),
    sketch: sketch(shingles(content)),
    contentChars: content.length,
    ...rest,
  };
}

const signals = (s: Partial<MemorySignals> = {}): MemorySignals => ({ id: "x", ...noMemorySignals, ...s });

const forgetParams = {
  minAgeDays: 30,
  recallWindowDays: 30,
  maxEmotion: 0.3,
  maxAttention: 0.2,
  maxDepth: 0.3,
};
const now = new Date("2026-06-01T00:00:00.000Z");

describe("forgetting decisions", () => {
  const old = card("an old note", { createdAt: "2026-01-01T00:00:00.000Z" });
  it("forgets only when every dimension agrees, and lists them", () => {
    const d = decideForgetting(old, signals(), forgetParams, now);
    expect(d).toEqual({
      forget: true,
      reasons: [
        "age 151 days ≥ 30",
        "no positive feedback",
        "emotion 0 ≤ 0.3",
        "attention 0 ≤ 0.2",
        "depth 0 ≤ 0.3",
        "never recalled",
      ],
    });
  });
  it("never forgets positive feedback or depth, whatever the rest", () => {
    expect(decideForgetting(old, signals({ useful: 1, notUseful: 5 }), forgetParams, now)).toEqual({
      forget: false,
      kept: "positive feedback",
    });
    expect(decideForgetting(old, signals({ depth: 0.31 }), forgetParams, now)).toEqual({
      forget: false,
      kept: "deep",
    });
  });
  it("keeps the young, the emotional, the attended and the recently recalled", () => {
    expect(
      decideForgetting(card("new", { createdAt: "2026-05-20T00:00:00.000Z" }), signals(), forgetParams, now),
    ).toMatchObject({ kept: "young" });
    expect(decideForgetting({ ...old, sentiment: -0.8 }, signals(), forgetParams, now)).toMatchObject({
      kept: "emotional",
    });
    expect(decideForgetting(old, signals({ attention: 0.5 }), forgetParams, now)).toMatchObject({
      kept: "attended",
    });
    expect(
      decideForgetting(old, signals({ lastRecalledAt: "2026-05-25T00:00:00.000Z" }), forgetParams, now),
    ).toMatchObject({ kept: "recalled lately" });
    const long = decideForgetting(
      old,
      signals({ lastRecalledAt: "2026-03-01T00:00:00.000Z", notUseful: 2 }),
      forgetParams,
      now,
    );
    expect(long).toMatchObject({ forget: true });
    expect(long.forget && long.reasons).toEqual(
      expect.arrayContaining(["no positive feedback (2 not useful)", "last recalled 92 days ago ≥ 30"]),
    );
  });
});

describe("consolidation groups", () => {
  it("groups similar memories of a bucket and leaves the unrelated and small groups alone", () => {
    const a = card("deploy pipeline pushes images to the registry");
    const b = card("the deploy pipeline pushes images into the registry nightly");
    const c = card("registry keeps images the deploy pipeline pushes");
    const d = card("lunch is served at noon in the cafeteria");
    const groups = groupSimilar([a, b, c, d], { similarity: 0.3, minGroup: 3, maxGroup: 8 });
    expect(groups).toHaveLength(1);
    expect(groups[0]?.members.map((m) => m.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(groupSimilar([a, b, d], { similarity: 0.3, minGroup: 3, maxGroup: 8 })).toEqual([]);
    expect(groupSimilar([a, b, c], { similarity: 0.3, minGroup: 2, maxGroup: 2 })[0]?.members).toHaveLength(
      2,
    );
  });
  it("counts shared keys, tags and entities as shared features", () => {
    const x = card("alpha beta", { keys: ["billing"], tags: ["finance"], entities: ["stripe"] });
    const y = card("gamma delta", { keys: ["billing"], tags: ["finance"], entities: ["stripe"] });
    const z = card("epsilon zeta", { keys: ["billing"], tags: ["finance"], entities: ["stripe"] });
    expect(groupSimilar([x, y, z], { similarity: 0.3, minGroup: 3, maxGroup: 8 })).toHaveLength(1);
  });
});

describe("dedup", () => {
  it("pairs near-identical texts of one domain only", () => {
    const a = card("use pnpm for installs in the monorepo never npm or yarn");
    const b = card("Use pnpm for installs in the monorepo; never npm or yarn!");
    const c = card("use pnpm for installs in the monorepo never npm or yarn", { scope: "agent" });
    const pairs = textDuplicates([a, b, c], 0.85);
    expect(pairs.map((p) => [p.a.id, p.b.id].sort())).toEqual([[a.id, b.id].sort()]);
  });
  it("keeps the more recalled, then the more useful, then the deeper, then the older", () => {
    const older = card("x", { createdAt: "2026-01-01T00:00:00.000Z" });
    const newer = card("y", { createdAt: "2026-02-01T00:00:00.000Z" });
    const by = (a: Partial<MemorySignals>, b: Partial<MemorySignals>) =>
      keepOf(
        older,
        newer,
        new Map([
          [older.id, signals(a)],
          [newer.id, signals(b)],
        ]),
      );
    expect(by({ recalls: 1 }, {}).keep).toBe(older);
    expect(by({}, { recalls: 2 }).keep).toBe(newer);
    expect(by({ recalls: 1 }, { recalls: 1, useful: 1 }).keep).toBe(newer);
    expect(by({ depth: 0.5 }, { depth: 0.1 }).keep).toBe(older);
    expect(by({}, {})).toMatchObject({ keep: older, why: "equally used; the older one stays" });
  });
});

describe("synonym discovery", () => {
  it("finds words that occur together, with the seeds' defaults", () => {
    const cards = Array.from({ length: 10 }, (_, i) => card(`kubernetes cluster word${i}x`));
    cards.push(card("cluster of desks"));
    const found = discoverSynonyms(cards, { minFrequency: 10, threshold: 0.5, minCooccurrence: 3 });
    expect(found).toEqual([{ a: "cluster", b: "kubernetes", jaccard: 10 / 11, together: 10 }]);
    expect(
      discoverSynonyms(cards.slice(0, 9), { minFrequency: 10, threshold: 0.5, minCooccurrence: 3 }),
    ).toEqual([]);
  });
});

describe("garbage collection", () => {
  it("purges deleted memories deleted long enough ago, not yet purged", () => {
    const now2 = new Date("2026-03-01T00:00:00.000Z");
    const old = card("a", { status: "deleted", statusChangedAt: "2026-01-01T00:00:00.000Z" });
    const recent = card("b", { status: "deleted", statusChangedAt: "2026-02-20T00:00:00.000Z" });
    const purged = card("c", {
      status: "deleted",
      statusChangedAt: "2026-01-01T00:00:00.000Z",
      purgedAt: "2026-01-02T00:00:00.000Z",
    });
    const archived = card("d", { status: "archived", statusChangedAt: "2026-01-01T00:00:00.000Z" });
    expect(purgeable([old, recent, purged, archived], 30, now2)).toEqual([old]);
  });
});

describe("extractive summaries", () => {
  it("keeps each sentence that adds a topic word, drops the repeated ones, in their order", () => {
    const summary = extractiveSummary({
      kind: "fact",
      maxChars: 1000,
      memories: [
        { title: "Deploys", content: "Deploys run from main. Nobody likes Mondays." },
        { title: "Deploy checks", content: "Deploys need a green build on main. Deploys run from main!" },
      ],
    });
    expect(summary.content).toBe(
      "Deploys run from main. Nobody likes Mondays. Deploys need a green build on main.",
    );
    expect(summary.title).toBe("Consolidated: deploys, deploy, checks");
  });
});
