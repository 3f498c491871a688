import { Redis } from "ioredis";
import { describe, expect, test } from "vitest";
import { infraTest } from "./infra-test.ts";
import { startRedis } from "./redis.ts";

describe("startRedis", () => {
  infraTest("answers with the RediSearch module loaded", async ({ redis, redisPrefix }) => {
    const client = new Redis(redis.url);
    try {
      expect(await client.ping()).toBe("PONG");
      const index = `${redisPrefix}idx`;
      // RediSearch 1.2 syntax: documents are added with FT.ADD, not indexed hashes.
      expect(await client.call("FT.CREATE", index, "SCHEMA", "title", "TEXT")).toBe("OK");
      expect(
        await client.call("FT.ADD", index, `${redisPrefix}doc1`, "1.0", "FIELDS", "title", "hello cairn"),
      ).toBe("OK");
      const result = (await client.call("FT.SEARCH", index, "cairn")) as unknown[];
      expect(result[0]).toBe(1);
      expect(result[1]).toBe(`${redisPrefix}doc1`);
    } finally {
      client.disconnect();
    }
  });

  test("an ioredis client reconnects after kill -9 and restart; appendonly keeps the data", async () => {
    await using redis = await startRedis({ appendonly: true });
    const client = new Redis(redis.url); // default retryStrategy and offline queue
    client.on("error", () => {}); // connection refused while the server is down
    let reconnects = 0;
    client.on("reconnecting", () => {
      reconnects += 1;
    });
    try {
      await client.set("survivor", "yes");
      const portBefore = redis.port;
      await redis.kill();
      await redis.restart();
      expect(redis.port).toBe(portBefore);
      expect(await client.get("survivor")).toBe("yes");
      expect(reconnects).toBeGreaterThan(0);
    } finally {
      client.disconnect();
    }
  });

  test("without appendonly a restart starts empty", async () => {
    await using redis = await startRedis();
    const client = new Redis(redis.url);
    client.on("error", () => {});
    try {
      await client.set("gone", "soon");
      await redis.kill();
      await redis.restart();
      expect(await client.get("gone")).toBeNull();
    } finally {
      client.disconnect();
    }
  });
});
