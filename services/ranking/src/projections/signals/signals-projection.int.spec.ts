import type { DecodedEvent } from "@cairn/contracts";
import { storedEvent } from "@cairn/contracts/testing";
import { infraTest as test } from "@cairn/testing";
import { describe, expect } from "vitest";
import { signalsProjection } from "./signals-projection.ts";

const ids = [
  "0b5f3c1e-8f0a-4a57-9d3e-2f6f1c9b7a10",
  "1c6f4d2f-9a1b-4b68-8e4f-3a7a2dac8b21",
  "2d7a5e3a-ab2c-4c79-9f5a-4b8b3ebd9c32",
];

/** Recalls of two tenants, interleaved: deliberate reads and listings, with shared memories and terms. */
function recalls(): DecodedEvent[] {
  const specs = [
    { tenant: "acme", memoryIds: [ids[0], ids[1]], read: true, terms: [] },
    { tenant: "acme", memoryIds: [ids[0]], read: false, terms: ["deploy", "staging"] },
    { tenant: "acme", memoryIds: [ids[0], ids[2]], read: true, terms: [] },
    { tenant: "acme", memoryIds: [ids[1]], read: false, terms: ["staging", "postgres"] },
    { tenant: "globex", memoryIds: [ids[2]], read: true, terms: [] },
    { tenant: "globex", memoryIds: [ids[2]], read: false, terms: ["staging"] },
    { tenant: "acme", memoryIds: [ids[0]], read: true, terms: [] },
    { tenant: "acme", memoryIds: [ids[0], ids[1], ids[2]], read: false, terms: ["deploy", "rollback"] },
  ];
  return specs.map((spec, i) =>
    storedEvent(
      "memories.recalled",
      {
        memoryIds: spec.memoryIds as string[],
        agent: "alice",
        viaKey: null,
        query: null,
        read: spec.read,
        terms: spec.terms,
      },
      {
        streamId: `activity-${i}`,
        version: 1,
        position: i + 1,
        // Hours and days apart, so that depth decays and heat ages between them.
        meta: { tenant: spec.tenant, recordedAt: new Date(Date.UTC(2026, 10, 1 + i, 3 * i)).toISOString() },
      },
    ),
  ) as DecodedEvent[];
}

describe("the signals read model", () => {
  test("a command's recalls applied as runs give exactly what applying them one by one gives", async ({
    redisClient: redis,
    uniqueName,
  }) => {
    const projection = (name: string) =>
      signalsProjection({
        redis,
        base: `${uniqueName}:${name}:`,
        readStream: () => Promise.reject(new Error("no repair here")),
        readTenantLog: () => Promise.reject(new Error("no purge here")),
        depth: { halfLifeDays: 30, gain: 0.25 },
        hotHalfLifeDays: 7,
      });
    const events = recalls();

    const together = projection("together");
    const g1 = await together.generations.live();
    await redis.config("RESETSTAT");
    const all = await together.apply({
      generation: g1,
      writer: { kind: "live" },
      expected: 0,
      next: events.length,
      events,
    });
    expect(all.outcome).toBe("ok");
    const togetherCommits = Number(/cmdstat_eval:calls=(\d+)/.exec(await redis.info("commandstats"))?.[1]);

    const apart = projection("apart");
    const g2 = await apart.generations.live();
    for (const event of events) {
      const one = await apart.apply({
        generation: g2,
        writer: { kind: "live" },
        expected: event.position - 1,
        next: event.position,
        events: [event],
      });
      expect(one.outcome).toBe("ok");
    }

    const snapshot = await together.snapshot(g1);
    expect(snapshot).toEqual(await apart.snapshot(g2));
    // Not an empty comparison: depth, recall counts and heat were all written.
    const names = snapshot.map(([name]) => name);
    expect(names).toEqual(expect.arrayContaining(["acme:hot", "globex:hot", `acme:sig:${ids[0]}`]));
    const signals = Object.fromEntries(snapshot)[`acme:sig:${ids[0]}`] as Record<string, string>;
    expect(signals).toMatchObject({ count: "5", reads: "3" });
    expect(Number(signals.depth)).toBeGreaterThan(0.5);
    // The runs (acme 1-4, globex 5-6, acme 7-8) committed once each.
    expect(togetherCommits).toBe(3);
  });
});
