// Generations of a read model kept in Redis, under one base key:
//   <base>active          the generation that serves and receives live events
//   <base>generations     the last generation number handed out
//   <base>pause           set by a rebuild while it switches (with a time limit)
//   <base>g<n>:checkpoint the last log position applied to generation n
//   <base>g<n>:builder    the rebuild that owns generation n while it is built
//   <base>g<n>:version    the version of the projection that built generation n
//   <base>g<n>:…          the generation's data, whatever the read model keeps
//
// A write to a generation is one Lua script: it checks that the writer still owns the
// generation, that live writes are not paused, and that the checkpoint is where the writer read
// it (compare-and-set), then runs the read model's commands and moves the checkpoint. A
// redelivered or concurrent write therefore has no second effect. (The data keys are not all
// declared to the script: a read model in Redis lives on one node, not a Redis Cluster.)
import type { Redis } from "ioredis";
import { sendEncoded } from "./encoded-command.ts";
import type { ApplyOutcome, Generations, ProjectionWriter } from "./projection.ts";

/** One Redis command: name and arguments, as `redis.call` takes them. */
export type RedisCommand = readonly [string, ...(string | number)[]];

export type RedisGenerationHooks = {
  /** The projection's version, recorded on every generation it creates. */
  version?: string | undefined;
  /** Creates what a new generation needs before its first write (an index). */
  createData?(generation: number): Promise<void>;
  /** Makes sure a serving generation's structures exist (after a Redis restart without data). */
  ensureData?(generation: number): Promise<void>;
  /** Whether a generation left structures outside its keys (an index) that a drop must remove. */
  hasData?(generation: number): Promise<boolean>;
  /** Removes what the key scan of the generation's prefix does not (an index). */
  dropData?(generation: number): Promise<void>;
  prepareToServe?(generation: number): Promise<void>;
};

export type RedisGenerations = Generations & {
  readonly base: string;
  /** The key prefix of a generation's data: `<base>g<n>:`. */
  prefix(generation: number): string;
  /** Runs the commands and moves the checkpoint from `expected` to `next`, atomically. */
  commit(
    generation: number,
    writer: ProjectionWriter,
    expected: number,
    next: number,
    commands: readonly RedisCommand[],
  ): Promise<ApplyOutcome>;
  isPaused(): Promise<boolean>;
};

/**
 * KEYS: owner, pause, checkpoint. ARGV: owner value, expected checkpoint, new checkpoint,
 * honour pause (1/0), then each command as its argument count followed by its arguments.
 */
const commitScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'not_owner' end
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 'paused' end
local current = redis.call('GET', KEYS[3])
if current == false then current = '0' end
if current ~= ARGV[2] then return 'stale' end
local a = 5
while a <= #ARGV do
  local n = tonumber(ARGV[a])
  redis.call(unpack(ARGV, a + 1, a + n))
  a = a + n + 1
end
redis.call('SET', KEYS[3], ARGV[3])
return 'ok'
`;

/**
 * Makes generation `to` the active one, only if `from` is still active, nothing was applied to
 * `from` since the switch was prepared (its checkpoint is still ARGV[3]), and `to` has reached
 * at least that checkpoint. Live events `to` already holds are then duplicates.
 * KEYS: active pointer, checkpoint of from, checkpoint of to, builder of to, pause.
 * ARGV: from, to, checkpoint, pause token.
 */
const switchScript = `
local active = redis.call('GET', KEYS[1])
if active == false then active = '' end
if active ~= ARGV[1] then return 'moved' end
local fromCk = redis.call('GET', KEYS[2]) or '0'
local toCk = redis.call('GET', KEYS[3]) or '0'
if fromCk ~= ARGV[3] or tonumber(toCk) < tonumber(ARGV[3]) then return 'behind' end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[4])
if redis.call('GET', KEYS[5]) == ARGV[4] then redis.call('DEL', KEYS[5]) end
return 'ok'
`;

export function createRedisGenerations(
  redis: Redis,
  base: string,
  hooks: RedisGenerationHooks = {},
): RedisGenerations {
  const activeKey = `${base}active`;
  const counterKey = `${base}generations`;
  const pauseKey = `${base}pause`;
  const prefix = (g: number) => `${base}g${g}:`;
  const checkpointKey = (g: number) => `${prefix(g)}checkpoint`;
  const builderKey = (g: number) => `${prefix(g)}builder`;
  const versionKey = (g: number) => `${prefix(g)}version`;
  const recordVersion = async (g: number) => {
    if (hooks.version !== undefined) await redis.set(versionKey(g), hooks.version);
  };

  async function dropGeneration(g: number): Promise<void> {
    await hooks.dropData?.(g);
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix(g)}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== "0");
  }

  async function exists(g: number): Promise<boolean> {
    return (await redis.exists(checkpointKey(g))) === 1 || (await hooks.hasData?.(g)) === true;
  }

  const generations: RedisGenerations = {
    base,
    prefix,
    async active() {
      const value = await redis.get(activeKey);
      return value === null ? null : Number(value);
    },
    async live() {
      const active = await generations.active();
      if (active !== null) {
        await hooks.ensureData?.(active);
        return active;
      }
      const g = await redis.incr(counterKey);
      await recordVersion(g);
      await hooks.createData?.(g);
      if ((await redis.set(activeKey, String(g), "NX")) === "OK") return g;
      // Another writer created the first generation at the same moment: use theirs.
      await dropGeneration(g);
      return (await generations.active()) as number;
    },
    async checkpoint(g) {
      return Number((await redis.get(checkpointKey(g))) ?? 0);
    },
    async create(token) {
      const g = await redis.incr(counterKey);
      await redis.set(builderKey(g), token);
      await recordVersion(g);
      await hooks.createData?.(g);
      return g;
    },
    version: (g) => redis.get(versionKey(g)),
    async resumable() {
      const last = Number((await redis.get(counterKey)) ?? 0);
      const active = await generations.active();
      const out = [];
      for (let g = 1; g <= last; g += 1) {
        if (g === active) continue;
        const [builder, checkpoint] = await redis.mget(builderKey(g), checkpointKey(g));
        if (builder === null || builder === undefined) continue;
        out.push({ generation: g, checkpoint: Number(checkpoint ?? 0) });
      }
      return out;
    },
    async leftovers() {
      const last = Number((await redis.get(counterKey)) ?? 0);
      const active = await generations.active();
      const out: number[] = [];
      for (let g = 1; g <= last; g += 1) {
        if (g === active || (await redis.exists(builderKey(g))) === 1) continue;
        if (await exists(g)) out.push(g);
      }
      return out;
    },
    async claim(g, token) {
      await redis.set(builderKey(g), token);
      await hooks.ensureData?.(g);
    },
    async prepareToServe(g) {
      await hooks.prepareToServe?.(g);
    },
    async pause(token, ttlMs) {
      await redis.set(pauseKey, token, "PX", ttlMs);
    },
    async resume(token) {
      if ((await redis.get(pauseKey)) === token) await redis.del(pauseKey);
    },
    async isPaused() {
      return (await redis.exists(pauseKey)) === 1;
    },
    async switchActive(from, to, checkpoint, token) {
      if (from === null) {
        if ((await redis.set(activeKey, String(to), "NX")) !== "OK") return "moved";
        await redis.del(builderKey(to));
        await generations.resume(token);
        return "ok";
      }
      const keys = [activeKey, checkpointKey(from), checkpointKey(to), builderKey(to), pauseKey];
      return (await redis.eval(
        switchScript,
        keys.length,
        ...keys,
        String(from),
        String(to),
        String(checkpoint),
        token,
      )) as "ok" | "moved" | "behind";
    },
    drop: dropGeneration,
    async commit(g, writer, expected, next, commands) {
      const live = writer.kind === "live";
      // Each command goes as its argument count, then its arguments (see the script).
      const parts: (readonly (string | number)[])[] = [
        ["EVAL", commitScript, 3, live ? activeKey : builderKey(g), pauseKey, checkpointKey(g)],
        [live ? String(g) : writer.token, String(expected), String(next), live ? "1" : "0"],
      ];
      for (const command of commands) parts.push([command.length], command);
      const reply = sendEncoded(redis, parts);
      // On its way: what this connection is sent next is carried out after it.
      if (writer.kind === "builder") writer.onSent?.();
      return (await reply) as ApplyOutcome;
    },
  };
  return generations;
}
