// The callers' last write positions (operations/caller.ts) in Redis, so `consistency=strong`
// waits for a key's last write whichever gateway copy took it. This copy remembers its own
// writes too: while Redis is away a strong read still waits for what was written through it.
import { createLocalWritePositions, type WritePositions } from "../operations/caller.ts";
import { redisScript, type SharedRedis } from "./shared-redis.ts";

const recordPosition = redisScript<number>(
  "cairnRecordWritePosition",
  `
-- KEYS[1]: the key's last write position. ARGV: the new position, how long to keep it (ms).
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > current then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
`,
);

/**
 * A day: long past any read model's catch-up, so a strong read after it waits for nothing
 * older, and a key that stopped writing leaves nothing behind.
 */
const keepMs = 24 * 60 * 60_000;

export function createSharedWritePositions(shared: SharedRedis): WritePositions {
  const local = createLocalWritePositions();
  const keyOf = (keyId: string) => shared.key(`last-write:${keyId}`);
  return {
    async record(keyId, position) {
      local.record(keyId, position);
      await shared.attempt(
        async (redis) => void (await recordPosition(redis, [keyOf(keyId)], [position, keepMs])),
        () => {},
      );
    },
    async last(keyId) {
      const own = local.last(keyId);
      const stored = await shared.attempt(
        async (redis) => {
          const value = await redis.get(keyOf(keyId));
          return value === null ? undefined : Number(value);
        },
        () => undefined,
      );
      if (stored === undefined) return own;
      return own === undefined ? stored : Math.max(own, stored);
    },
  };
}
