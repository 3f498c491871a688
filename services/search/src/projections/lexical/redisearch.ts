// The two generations of the RediSearch module differ in how an index is created and how a
// document gets into it; queries are the same. 1.x (Debian's redis-redisearch): documents go
// in with FT.ADD and are dropped with the index (FT.DROP). 2.x and later (Redis Stack,
// redis:8): an index follows hashes under a key prefix (ON HASH PREFIX), written with HSET.
import { CairnError } from "@cairn/contracts";
import type { Redis } from "ioredis";

export type RediSearchModule = {
  /** `1` for FT.ADD-style documents, `2` for indexed hashes (2.x, and the query engine in Redis 8). */
  generation: 1 | 2;
  /** The module version as MODULE LIST reports it, e.g. 10200 or 80000. */
  version: number;
};

/** The BM25 scorer's name: `BM25` until Redis 8.4 renamed it `BM25STD` (and deprecated the old one). */
export function bm25Scorer(module: RediSearchModule): string {
  return module.version >= 80_400 ? "BM25STD" : "BM25";
}

/** Reads MODULE LIST once and tells which generation of RediSearch is loaded. */
export async function detectRediSearch(redis: Redis): Promise<RediSearchModule> {
  const modules = (await redis.call("MODULE", "LIST")) as unknown[][];
  for (const entry of modules) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < entry.length; i += 2) fields.set(String(entry[i]), entry[i + 1]);
    const name = String(fields.get("name") ?? "").toLowerCase();
    if (name !== "search" && name !== "ft") continue;
    const version = Number(fields.get("ver"));
    return { generation: version >= 20_000 ? 2 : 1, version };
  }
  throw new CairnError("unavailable", "the Redis server has no RediSearch module loaded", {
    hint: "load redisearch.so (Debian: redis-redisearch) or use Redis 8 / Redis Stack",
  });
}

/** FT.CREATE arguments for an index over documents whose keys start with `docPrefix`. */
export function createIndexCommand(
  module: RediSearchModule,
  index: string,
  docPrefix: string,
  schema: readonly string[],
): string[] {
  if (module.generation === 1) return ["FT.CREATE", index, "SCHEMA", ...schema];
  return ["FT.CREATE", index, "ON", "HASH", "PREFIX", "1", docPrefix, "SCHEMA", ...schema];
}

/** Drops an index and its documents. */
export function dropIndexCommand(module: RediSearchModule, index: string): string[] {
  return module.generation === 1 ? ["FT.DROP", index] : ["FT.DROPINDEX", index, "DD"];
}

export function isUnknownIndexError(error: unknown): boolean {
  return error instanceof Error && /unknown index name|no such index/i.test(error.message);
}

export function isIndexExistsError(error: unknown): boolean {
  return error instanceof Error && /index already exists/i.test(error.message);
}

/**
 * Writes documents and moves a checkpoint in one atomic step, only if the writer still owns
 * the generation, the projection is not paused, and the checkpoint is where the writer read
 * it (compare-and-set). A redelivered or concurrent write therefore has no second effect.
 *
 * KEYS: owner, pause, checkpoint, then one key per write.
 * ARGV: owner value, expected checkpoint, new checkpoint, module generation, index,
 *       honour pause (1/0), then per write: kind (doc|hash), field count, fields...
 */
export const commitScript = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'not_owner' end
if ARGV[6] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then return 'paused' end
local current = redis.call('GET', KEYS[3])
if current == false then current = '0' end
if current ~= ARGV[2] then return 'stale' end
local a = 7
for k = 4, #KEYS do
  local kind = ARGV[a]
  local n = tonumber(ARGV[a + 1])
  a = a + 2
  local fields = {}
  for j = 1, n do fields[j] = ARGV[a + j - 1] end
  a = a + n
  if kind == 'doc' and ARGV[4] == '1' then
    redis.call('FT.ADD', ARGV[5], KEYS[k], '1.0', 'REPLACE', 'FIELDS', unpack(fields))
  elseif kind == 'doc' then
    redis.call('DEL', KEYS[k])
    redis.call('HSET', KEYS[k], unpack(fields))
  else
    redis.call('HSET', KEYS[k], unpack(fields))
  end
end
redis.call('SET', KEYS[3], ARGV[3])
return 'ok'
`;

/**
 * Makes generation `to` the active one, only if `from` is still active, nothing was applied
 * to `from` since the switch was prepared (its checkpoint is still ARGV[3]), and `to` has
 * reached at least that checkpoint. Live events `to` already holds are then duplicates.
 * KEYS: active pointer, checkpoint of from, checkpoint of to, builder of to, pause.
 * ARGV: from, to, checkpoint, pause token.
 */
export const switchScript = `
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

export type CommitOutcome = "ok" | "not_owner" | "paused" | "stale";
