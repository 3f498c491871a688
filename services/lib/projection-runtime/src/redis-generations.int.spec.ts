import { infraTest as test } from "@cairn/testing";
import { describe, expect } from "vitest";
import { createRedisGenerations, type RedisCommand } from "./redis-generations.ts";

// Text a memory may hold, including what looks like Redis's own protocol.
const values = ["naïve café", "记忆 🪨", "line\r\nbreak", "*2\r\n$1\r\nx", "", "$-1", "0.1"];

describe("a Redis generation's commit", () => {
  test("writes every command's values exactly, and moves the checkpoint only from the one it expects", async ({
    redisClient: redis,
    uniqueName,
  }) => {
    const generations = createRedisGenerations(redis, `${uniqueName}:`);
    const g = await generations.live();
    const key = `${generations.prefix(g)}doc`;
    const fields = values.flatMap((value, i) => [`f${i}`, value]);
    const commands: RedisCommand[] = [
      ["HSET", key, ...fields],
      ["ZADD", `${generations.prefix(g)}z`, 1.5, "记忆"],
    ];
    expect(await generations.commit(g, { kind: "live" }, 0, 7, commands)).toBe("ok");
    expect(await redis.hgetall(key)).toEqual(Object.fromEntries(values.map((value, i) => [`f${i}`, value])));
    expect(await redis.zscore(`${generations.prefix(g)}z`, "记忆")).toBe("1.5");
    expect(await generations.checkpoint(g)).toBe(7);

    // A writer that read an older checkpoint changes nothing.
    expect(await generations.commit(g, { kind: "live" }, 0, 9, [["DEL", key]])).toBe("stale");
    expect(await redis.exists(key)).toBe(1);
    expect(await generations.checkpoint(g)).toBe(7);
  });
});
