/**
 * Failed authentications per client address: after `limit` wrong keys within `windowMs`, the
 * address is refused (429) until its window ends, before any key it sends is looked up. Keys
 * are 256 random bits, so this is not what keeps them secret; it keeps a guesser from costing
 * the key store a query per guess. Kept in the gateway's memory, per copy, like the rate limits.
 */
export type AuthFailureThrottle = {
  /** Seconds until the address may try again, or undefined while it may. */
  refusedFor(address: string, now?: number): number | undefined;
  recordFailure(address: string, now?: number): void;
};

type Window = { failures: number; endsAt: number };

export function createAuthFailureThrottle(options: {
  /** Wrong keys allowed per window; 0 turns the throttle off. */
  limit: number;
  windowMs: number;
  maxAddresses?: number;
}): AuthFailureThrottle {
  const windows = new Map<string, Window>();
  const maxAddresses = options.maxAddresses ?? 100_000;
  const current = (address: string, now: number) => {
    const window = windows.get(address);
    return window && window.endsAt > now ? window : undefined;
  };
  return {
    refusedFor(address, now = Date.now()) {
      if (options.limit <= 0) return undefined;
      const window = current(address, now);
      if (!window || window.failures < options.limit) return undefined;
      return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
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
