/**
 * Per-key token buckets: `burst` requests at once, refilled at `perMinute`. The gateway's
 * copies share the buckets in Redis (shared-state/shared-rate-limiter.ts, the same rule as a
 * Lua script); this in-memory one counts for one copy, and is what a copy falls back to while
 * Redis is away.
 */
export type RateLimitDecision =
  | { allowed: true; remaining: number }
  | { allowed: false; retryAfterSeconds: number };

export type RateLimiter = {
  take(key: string): RateLimitDecision | Promise<RateLimitDecision>;
  readonly limit: number;
};

export type RateLimitOptions = { perMinute: number; burst: number };

/** A copy's own buckets; `now` is for tests. */
export type LocalRateLimiter = {
  take(key: string, now?: number): RateLimitDecision;
  readonly limit: number;
};

/** The answer for a bucket holding `tokens` after this request took one (`allowed`) or could not. */
export function rateLimitDecision(tokens: number, allowed: boolean, perMinute: number): RateLimitDecision {
  if (allowed) return { allowed: true, remaining: Math.floor(tokens) };
  const perMs = perMinute / 60_000;
  const waitMs = perMs > 0 ? (1 - tokens) / perMs : 60_000;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

type Bucket = { tokens: number; updatedAt: number };

export function createRateLimiter(options: RateLimitOptions & { maxKeys?: number }): LocalRateLimiter {
  const buckets = new Map<string, Bucket>();
  const perMs = options.perMinute / 60_000;
  const maxKeys = options.maxKeys ?? 100_000;
  return {
    limit: options.burst,
    take(key, now = Date.now()) {
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= maxKeys) buckets.clear();
        bucket = { tokens: options.burst, updatedAt: now };
        buckets.set(key, bucket);
      }
      bucket.tokens = Math.min(options.burst, bucket.tokens + Math.max(0, now - bucket.updatedAt) * perMs);
      bucket.updatedAt = now;
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      return rateLimitDecision(bucket.tokens, allowed, options.perMinute);
    },
  };
}
