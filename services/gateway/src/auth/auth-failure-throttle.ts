/**
 * Failed authentications per client address: after `limit` wrong keys within `windowMs`, the
 * address is refused (429) until its window ends, before any key it sends is looked up. Keys
 * are 256 random bits, so this is not what keeps them secret; it keeps a guesser from costing
 * the key store a query per guess. The gateway's copies count together in Redis
 * (shared-state/shared-auth-failure-throttle.ts); this in-memory one counts for one copy, and
 * is what a copy falls back to while Redis is away.
 */
export type AuthFailureThrottle = {
  /** Seconds until the address may try again, or undefined while it may. */
  refusedFor(address: string): number | undefined | Promise<number | undefined>;
  recordFailure(address: string): void | Promise<void>;
};

export type AuthFailureOptions = {
  /** Wrong keys allowed per window; 0 turns the throttle off. */
  limit: number;
  windowMs: number;
};

/** A copy's own counts; `now` is for tests. */
export type LocalAuthFailureThrottle = {
  refusedFor(address: string, now?: number): number | undefined;
  recordFailure(address: string, now?: number): void;
};

/** Seconds to wait when `failures` were counted in a window that ends in `remainingMs`. */
export function throttledFor(failures: number, remainingMs: number, limit: number): number | undefined {
  if (limit <= 0 || failures < limit || remainingMs <= 0) return undefined;
  return Math.max(1, Math.ceil(remainingMs / 1000));
}

type Window = { failures: number; endsAt: number };

export function createAuthFailureThrottle(
  options: AuthFailureOptions & { maxAddresses?: number },
): LocalAuthFailureThrottle {
  const windows = new Map<string, Window>();
  const maxAddresses = options.maxAddresses ?? 100_000;
  const current = (address: string, now: number) => {
    const window = windows.get(address);
    return window && window.endsAt > now ? window : undefined;
  };
  return {
    refusedFor(address, now = Date.now()) {
      const window = current(address, now);
      return window ? throttledFor(window.failures, window.endsAt - now, options.limit) : undefined;
    },
    recordFailure(address, now = Date.now()) {
      if (options.limit <= 0) return;
      const window = current(address, now);
      if (window) {
        window.failures += 1;
        return;
      }
      if (windows.size >= maxAddresses) windows.clear();
      windows.set(address, { failures: 1, endsAt: now + options.windowMs });
    },
  };
}
