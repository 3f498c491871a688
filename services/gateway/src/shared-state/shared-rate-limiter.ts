// The per-key token buckets of auth/rate-limiter.ts, kept in Redis so every gateway copy
// draws from the same bucket: a key gets its limit once, however many copies serve it. One
// Lua script reads, refills, takes and writes a bucket atomically, on Redis's clock, so copies
// racing for the last token cannot both get it and their clocks need not agree.
import {
  createRateLimiter,
  type RateLimitDecision,
  type RateLimitOptions,
  rateLimitDecision,
} from "../auth/rate-limiter.ts";
import { redisScript, type SharedRedis } from "./shared-redis.ts";

const takeToken = redisScript<[number, string]>(
  "cairnTakeToken",
  `
-- KEYS[1]: the key's bucket. ARGV: burst, tokens per ms, now in ms (empty: Redis's clock).
local burst = tonumber(ARGV[1])
local perMs = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or burst
local at = tonumber(bucket[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * perMs)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
-- All 17 digits: tostring keeps 14, and a rounded count could let one request too many through.
local exact = string.format('%.17g', tokens)
redis.call('HSET', KEYS[1], 'tokens', exact, 'at', string.format('%.17g', now))
-- Left alone until it is full again, a bucket is the same as none.
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil((burst - tokens) / perMs) + 1000))
return { allowed, exact }
`,
);

export type SharedRateLimiter = {
  /** `now` (ms) in place of Redis's clock: for tests that compare it with the in-memory rule. */
  take(key: string, now?: number): Promise<RateLimitDecision>;
  readonly limit: number;
};

export function createSharedRateLimiter(shared: SharedRedis, options: RateLimitOptions): SharedRateLimiter {
  const local = createRateLimiter(options);
  const perMs = options.perMinute / 60_000;
  return {
    limit: options.burst,
    take(key, now?: number) {
      return shared.attempt(
        async (redis) => {
          const [allowed, tokens] = await takeToken(
            redis,
            [shared.key(`rate:${key}`)],
            [options.burst, perMs, now ?? ""],
          );
          return rateLimitDecision(Number(tokens), allowed === 1, options.perMinute);
        },
        () => local.take(key, now),
      );
    },
  };
}
