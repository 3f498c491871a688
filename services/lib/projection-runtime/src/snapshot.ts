// A generation's data as plain, ordered values: two generations built from the same log have
// equal snapshots, whatever order their writes came in and whichever generation number they
// carry. The runtime's own bookkeeping (checkpoint, builder, version) is not part of it. Used to check
// a rebuild against the live read model.
import type { Redis } from "ioredis";

/** One stored thing of a generation: its name inside the generation and its value. */
export type SnapshotEntry = readonly [name: string, value: unknown];
export type ProjectionSnapshot = readonly SnapshotEntry[];

const bookkeeping = new Set(["checkpoint", "builder", "version"]);

const byName = (a: SnapshotEntry, b: SnapshotEntry) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Every key under `prefix` (a generation's `<base>g<n>:`) with its value, by type. */
export async function snapshotRedisPrefix(redis: Redis, prefix: string): Promise<ProjectionSnapshot> {
  const names: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    names.push(...keys);
  } while (cursor !== "0");
  const entries: SnapshotEntry[] = [];
  for (const key of [...new Set(names)]) {
    const name = key.slice(prefix.length);
    if (bookkeeping.has(name)) continue;
    entries.push([name, await storedValue(redis, key)]);
  }
  return entries.sort(byName);
}

async function storedValue(redis: Redis, key: string): Promise<unknown> {
  const type = await redis.type(key);
  switch (type) {
    case "string":
      return await redis.get(key);
    case "hash": {
      const h = await redis.hgetall(key);
      return Object.fromEntries(Object.entries(h).sort(([a], [b]) => (a < b ? -1 : 1)));
    }
    case "set":
      return (await redis.smembers(key)).sort();
    case "zset": {
      const flat = await redis.zrange(key, 0, -1, "WITHSCORES");
      const pairs: [string, number][] = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i] as string, Number(flat[i + 1])]);
      return pairs.sort(([a], [b]) => (a < b ? -1 : 1));
    }
    case "list":
      return await redis.lrange(key, 0, -1);
    default:
      return { type };
  }
}

/** Rows in a stable order (the caller's query decides the columns; this orders them). */
export function snapshotRows(
  rows: readonly Record<string, unknown>[],
  id: (row: Record<string, unknown>) => string,
) {
  return rows.map((row) => [id(row), row] as SnapshotEntry).sort(byName);
}
