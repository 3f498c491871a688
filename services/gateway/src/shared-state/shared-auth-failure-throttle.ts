// The failed-key throttle of auth/auth-failure-throttle.ts, counted in Redis so an address's
// wrong keys add up across every gateway copy. A window opens with the first failure and ends
// `windowMs` later (the key's expiry); counting and opening are one atomic script, so copies
// racing on the same address lose no failure and leave no window without an end.
import {
  type AuthFailureOptions,
  type AuthFailureThrottle,
  createAuthFailureThrottle,
  throttledFor,
} from "../auth/auth-failure-throttle.ts";
import { redisScript, type SharedRedis } from "./shared-redis.ts";

const countFailure = redisScript<number>(
  "cairnCountAuthFailure",
  `
-- KEYS[1]: the address's window. ARGV[1]: its length in ms.
local failures = redis.call('INCR', KEYS[1])
if failures == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return failures
`,
);

const readWindow = redisScript<[number, number]>(
  "cairnReadAuthFailures",
  `
-- KEYS[1]: the address's window: its failures and the ms until it ends.
local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
if failures == 0 then return { 0, 0 } end
return { failures, redis.call('PTTL', KEYS[1]) }
`,
);

export function createSharedAuthFailureThrottle(
  shared: SharedRedis,
  options: AuthFailureOptions,
): AuthFailureThrottle {
  const local = createAuthFailureThrottle(options);
  const keyOf = (address: string) => shared.key(`auth-failures:${address}`);
  return {
    refusedFor(address) {
      if (options.limit <= 0) return undefined;
      return shared.attempt(
        async (redis) => {
          const [failures, remainingMs] = await readWindow(redis, [keyOf(address)], []);
          return throttledFor(failures, remainingMs, options.limit);
        },
        () => local.refusedFor(address),
      );
    },
    async recordFailure(address) {
      if (options.limit <= 0) return;
      await shared.attempt(
        async (redis) => void (await countFailure(redis, [keyOf(address)], [options.windowMs])),
        () => local.recordFailure(address),
      );
    },
  };
}
