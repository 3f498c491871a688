import type { DecodedEvent } from "@cairn/contracts";
import { MemoryFoldError } from "@cairn/memory-model";
import { infraTest as test } from "@cairn/testing";
import { Redis } from "ioredis";
import { describe, expect } from "vitest";
import { applyEventByEvent } from "./apply-event-by-event.ts";
import { createRedisGenerations } from "./redis-generations.ts";
import type { RedisWrites } from "./redis-writes.ts";

const at = (position: number) => ({ position, type: "memories.recalled" }) as unknown as DecodedEvent;

/** Redis's count of the compare-and-set commits run so far (each is one script call). */
async function commits(redis: Redis): Promise<number> {
  const stats = await redis.info("commandstats");
  const calls = (command: string) =>
    Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return calls("eval") + calls("evalsha");
}

/** A live generation on a fresh connection, for the length of `use`. */
async function withLiveGeneration<T>(
  url: string,
  base: string,
  use: (redis: Redis, generations: ReturnType<typeof createRedisGenerations>, g: number) => Promise<T>,
): Promise<T> {
  const redis = new Redis(url);
  try {
    const generations = createRedisGenerations(redis, base);
    return await use(redis, generations, await generations.live());
  } finally {
    redis.disconnect();
  }
}

describe("applying event by event", () => {
  test("events that write nothing share the next commit; what one wrote is read by the next", async ({
    redis: server,
    uniqueName,
  }) => {
    await withLiveGeneration(server.url, `${uniqueName}:`, async (redis, generations, g) => {
      const base = generations.prefix(g);
      await redis.config("RESETSTAT");
      const seen: (string | null)[] = [];
      const result = await applyEventByEvent(
        generations,
        {
          generation: g,
          writer: { kind: "live" },
          expected: 0,
          next: 40,
          events: [10, 11, 12, 13, 20, 30].map(at),
        },
        async (events, writes: RedisWrites) => {
          const { position } = events[0] as DecodedEvent;
          seen.push(await redis.get(`${base}count`));
          if (position === 12) throw new MemoryFoldError("a gap");
          if (position === 11 || position === 20) writes.incrby(`${base}count`, 1);
        },
      );
      expect(result).toMatchObject({ outcome: "ok" });
      expect(result.refused.map((r) => r.event.position)).toEqual([12]);
      // Each event read what the writing events before it committed.
      expect(seen).toEqual([null, null, "1", "1", "1", "2"]);
      expect(await generations.checkpoint(g)).toBe(40);
      // Two events wrote, and the batch's end moved the checkpoint past the rest: three commits,
      // not one per event.
      expect(await commits(redis)).toBe(3);
    });
  });

  test("a commit refused for a moved checkpoint reports only the refusals it had committed", async ({
    redis: server,
    uniqueName,
  }) => {
    await withLiveGeneration(server.url, `${uniqueName}:`, async (redis, generations, g) => {
      // Another writer moved the checkpoint after event 11 was committed.
      const result = await applyEventByEvent(
        generations,
        { generation: g, writer: { kind: "live" }, expected: 0, next: 30, events: [10, 11, 12, 20].map(at) },
        async (events, writes: RedisWrites) => {
          const { position } = events[0] as DecodedEvent;
          if (position === 10 || position === 12) throw new MemoryFoldError("a gap");
          writes.set(`${generations.prefix(g)}at`, position);
          if (position === 11) return;
          await redis.set(`${generations.prefix(g)}checkpoint`, "15");
        },
      );
      expect(result).toMatchObject({ outcome: "stale", checkpoint: 11 });
      expect(result.refused.map((r) => r.event.position)).toEqual([10]);
    });
  });
  test("a run of events is applied as one step with one commit; a run the fold refuses is applied again event by event", async ({
    redis: server,
    uniqueName,
  }) => {
    await withLiveGeneration(server.url, `${uniqueName}:`, async (redis, generations, g) => {
      const base = generations.prefix(g);
      await redis.config("RESETSTAT");
      const steps: number[][] = [];
      const result = await applyEventByEvent(
        generations,
        {
          generation: g,
          writer: { kind: "live" },
          expected: 0,
          next: 30,
          events: [10, 11, 12, 20, 21].map(at),
        },
        async (events, writes: RedisWrites) => {
          steps.push(events.map((e) => e.position));
          if (events.some((e) => e.position === 21)) throw new MemoryFoldError("a gap");
          writes.incrby(`${base}count`, events.length);
        },
        (event) => (event.position < 20 ? "first" : "second"),
      );
      expect(steps).toEqual([[10, 11, 12], [20, 21], [20], [21]]);
      expect(result).toMatchObject({ outcome: "ok" });
      expect(result.refused.map((r) => r.event.position)).toEqual([21]);
      expect(await redis.get(`${base}count`)).toBe("4");
      expect(await generations.checkpoint(g)).toBe(30);
      // The first run, event 20, and the batch's end.
      expect(await commits(redis)).toBe(3);
    });
  });
});
