/**
 * Per-key token buckets: `burst` requests at once, refilled at `perMinute`. Kept in the
 * gateway's memory, so the limit is per gateway copy; that bounds what one key can cost a
 * copy, which is what the limit is for.
 */
export type RateLimitDecision =
  | { allowed: true; remaining: number }
  | { allowed: false; retryAfterSeconds: number };

export type RateLimiter = {
  take(key: string, now?: number): RateLimitDecision;
  readonly limit: number;
};

type Bucket = { tokens: number; updatedAt: number };

export function createRateLimiter(options: {
  perMinute: number;
  burst: number;
  maxKeys?: number;
}): RateLimiter {
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
      bucket.tokens = Math.min(options.burst, bucket.tokens + (now - bucket.updatedAt) * perMs);
      bucket.updatedAt = now;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true, remaining: Math.floor(bucket.tokens) };
      }
      const waitMs = perMs > 0 ? (1 - bucket.tokens) / perMs : 60_000;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    },
  };
}
