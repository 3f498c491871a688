// The shared stores against a real Redis: the token bucket's Lua script takes the same
// decisions as the in-memory bucket on the same timeline (one rule, written twice), and every
// store answers from the copy's memory while Redis is unreachable.
import { createLogger } from "@cairn/telemetry";
import { freePort, infraTest, waitFor } from "@cairn/testing";
import { startRedis } from "@cairn/testing/servers";
import { Redis } from "ioredis";
import { describe, expect } from "vitest";
import { createRateLimiter } from "../auth/rate-limiter.ts";
import { createSharedAuthFailureThrottle } from "./shared-auth-failure-throttle.ts";
import { createSharedMcpSessionStore } from "./shared-mcp-session-store.ts";
import { createSharedRateLimiter } from "./shared-rate-limiter.ts";
import { connectSharedRedis } from "./shared-redis.ts";
import { createSharedWritePositions } from "./shared-write-positions.ts";

const logger = createLogger("gateway", "silent");

describe("shared gateway state", () => {
  infraTest("takes tokens in Redis exactly as the in-memory bucket does", async ({ redis, redisPrefix }) => {
    const shared = await connectSharedRedis({ url: redis.url, prefix: redisPrefix, logger });
    try {
      const options = { perMinute: 90, burst: 5 };
      const inRedis = createSharedRateLimiter(shared, options);
      const inMemory = createRateLimiter(options);
      // Bursts, pauses shorter and longer than a token's refill (667 ms), two keys.
      let now = 1_000_000;
      const steps = [0, 0, 0, 0, 0, 0, 0, 100, 300, 700, 0, 0, 2000, 0, 0, 0, 0, 0, 0, 50, 5000, 0];
      for (const [i, step] of steps.entries()) {
        now += step;
        const key = i % 5 === 4 ? "other" : "key";
        expect(await inRedis.take(key, now), `step ${i}`).toEqual(inMemory.take(key, now));
      }
    } finally {
      shared.close();
    }
  });

  infraTest("answers from the copy's memory while Redis cannot be reached", async () => {
    const unreachable = `redis://127.0.0.1:${await freePort()}`;
    const shared = await connectSharedRedis({ url: unreachable, logger, connectWaitMs: 200 });
    try {
      expect(shared.available).toBe(false);
      const limiter = createSharedRateLimiter(shared, { perMinute: 60, burst: 2 });
      expect((await limiter.take("k")).allowed).toBe(true);
      expect((await limiter.take("k")).allowed).toBe(true);
      expect(await limiter.take("k")).toEqual({ allowed: false, retryAfterSeconds: 1 });

      const throttle = createSharedAuthFailureThrottle(shared, { limit: 1, windowMs: 60_000 });
      await throttle.recordFailure("203.0.113.9");
      expect(await throttle.refusedFor("203.0.113.9")).toBeGreaterThan(50);

      const positions = createSharedWritePositions(shared);
      await positions.record("k", 42);
      expect(await positions.last("k")).toBe(42);

      const sessions = createSharedMcpSessionStore(shared, { idleMs: 60_000 });
      await sessions.open("opened-here", { keyId: "k", episode: "e" });
      expect(await sessions.find("opened-here")).toEqual({ keyId: "k", episode: "e" });
      await expect(sessions.find("opened-elsewhere")).rejects.toMatchObject({ code: "unavailable" });
      await expect(sessions.end("opened-here")).rejects.toMatchObject({ code: "unavailable" });
      sessions.close();
    } finally {
      shared.close();
    }
  });

  infraTest(
    "a session kept while Redis refused writes reaches the other copies once Redis takes it",
    async () => {
      // A Redis out of memory answers pings and refuses every write: the write-back that follows
      // the recovery fails, and must be tried again rather than counted as done.
      const server = await startRedis({ modulePath: null, extraArgs: ["--maxmemory", "1"] });
      const admin = new Redis(server.url);
      const here = await connectSharedRedis({ url: server.url, logger, probeIntervalMs: 50 });
      const there = await connectSharedRedis({ url: server.url, logger, probeIntervalMs: 50 });
      const sessions = createSharedMcpSessionStore(here, { idleMs: 60_000 });
      const elsewhere = createSharedMcpSessionStore(there, { idleMs: 60_000 });
      try {
        await sessions.open("opened-while-full", { keyId: "k", episode: "e" });
        expect(await sessions.find("opened-while-full")).toEqual({ keyId: "k", episode: "e" });
        // Several probes answer meanwhile; each write-back is refused.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await elsewhere.find("opened-while-full")).toBeUndefined();
        await admin.config("SET", "maxmemory", "0");
        await waitFor(async () => (await elsewhere.find("opened-while-full")) !== undefined, {
          timeoutMs: 5000,
          intervalMs: 50,
          description: "the other copy to find the session",
        });
        expect(await elsewhere.find("opened-while-full")).toEqual({ keyId: "k", episode: "e" });
      } finally {
        sessions.close();
        elsewhere.close();
        here.close();
        there.close();
        admin.disconnect();
        await server.stop();
      }
    },
  );
});
