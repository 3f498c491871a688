import { infraTest as test } from "@cairn/testing";
import { describe, expect } from "vitest";
import { signalsLayout } from "../store/redis-layout.ts";
import { loadSignals } from "./load-signals.ts";
import type { RequestContext } from "./ranking-context.ts";

const [a, b, c, d] = [
  "0b5f3c1e-8f0a-4a57-9d3e-2f6f1c9b7a10",
  "1c6f4d2f-9a1b-4b68-8e4f-3a7a2dac8b21",
  "2d7a5e3a-ab2c-4c79-9f5a-4b8b3ebd9c32",
  "3e8b6f4b-bc3d-4d8a-8a6b-5c9c4fce0d43",
] as const;

describe("the signals of a rerank's memories", () => {
  test("each memory's recalls, depth and votes, and its terms' attention and heat, each its own", async ({
    redisClient: redis,
    uniqueName,
  }) => {
    const layout = signalsLayout(`${uniqueName}:g1:`);
    const paths = layout("acme");
    const now = new Date("2026-11-20T12:00:00.000Z");
    // Attention and heat rank the terms differently, so that one read for the other shows.
    await redis.zadd(paths.attention, 99, "incident", 9, "rollback", 3, "deploy");
    await redis.zadd(paths.hot, 1.5, "incident", 4, "deploy");
    // A term only this many memories share: more than a thousand distinct terms in one read.
    const many = Array.from({ length: 1500 }, (_, i) => `term${i}`);
    await redis.zadd(paths.attention, ...many.flatMap((t, i) => [i % 7, t]));
    await redis.hset(paths.memory(a), {
      count: "4",
      lastAt: "2026-11-19T08:00:00.000Z",
      reads: "2",
      lastReadAt: "2026-11-18T08:00:00.000Z",
      depth: "0.8",
      depthAt: now.toISOString(),
      "fb:alice": "1",
      "fb:bob": "-1",
      "fb:carol": "1",
    });
    const ctx = {
      redis,
      layout: { signals: layout },
      clock: () => now,
      depth: { halfLifeDays: 30, gain: 0.25 },
    } as unknown as RequestContext;

    const signals = await loadSignals(ctx, "acme", [
      { id: a, terms: ["rollback"] },
      { id: b, terms: ["deploy"] },
      { id: c, terms: [] },
      { id: d, terms: many },
    ]);

    expect(signals.get(a)).toEqual({
      useful: 2,
      notUseful: 1,
      recalls: 4,
      lastRecalledAt: "2026-11-19T08:00:00.000Z",
      reads: 2,
      lastReadAt: "2026-11-18T08:00:00.000Z",
      depth: 0.8,
      // `rollback`: attended (log scale, against `incident`), never hot.
      attention: Math.log1p(9) / Math.log1p(99) / 3,
      hotTopic: 0,
    });
    // `deploy`: the hottest term, little attended.
    expect(signals.get(b)).toMatchObject({
      recalls: 0,
      useful: 0,
      depth: 0,
      attention: Math.log1p(3) / Math.log1p(99) / 3,
      hotTopic: 1 / 3,
    });
    expect(signals.get(c)).toMatchObject({ attention: 0, hotTopic: 0, recalls: 0 });
    // Its three most attended terms (scores 6) are each read.
    expect(signals.get(d)?.attention).toBeCloseTo(Math.log1p(6) / Math.log1p(99), 12);

    // Memories without terms ask for no term at all.
    const bare = await loadSignals(ctx, "acme", [{ id: a, terms: [] }]);
    expect(bare.get(a)).toMatchObject({ recalls: 4, useful: 2, attention: 0, hotTopic: 0 });
  });
});
