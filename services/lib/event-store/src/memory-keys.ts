// The content keys of memories (`cairn_memory_keys`), outside the log: ingest creates them
// and seals with them, projections open with them (`keysFor` is a `ContentKeyring`), and a
// purge destroys them. See contracts/src/sealed-content.ts for the scheme.
import { CairnError, type ContentKeyring, type ContentKeyState, newContentKey } from "@cairn/contracts";
import type pg from "pg";

export type MemoryKeyStore = ContentKeyring & {
  /**
   * The key of each memory, created for those that have none yet. A memory whose key was
   * destroyed gets no new one: writing text to a purged memory is refused.
   */
  ensureKeys(tenant: string, memoryIds: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Destroys the keys of these memories; answers the ids whose key was destroyed by this call. */
  shred(memoryIds: readonly string[]): Promise<string[]>;
};

type KeyRow = { memory_id: string; key: Buffer | null; shredded_at: Date | null };

async function readKeys(db: pg.Pool | pg.ClientBase, ids: readonly string[]): Promise<KeyRow[]> {
  const { rows } = await db.query<KeyRow>(
    "select memory_id::text, key, shredded_at from cairn_memory_keys where memory_id = any($1::uuid[])",
    [ids],
  );
  return rows;
}

export function createMemoryKeyStore(db: pg.Pool): MemoryKeyStore {
  return {
    async keysFor(memoryIds) {
      const out = new Map<string, ContentKeyState>();
      if (memoryIds.length === 0) return out;
      for (const row of await readKeys(db, [...new Set(memoryIds)])) {
        out.set(
          row.memory_id,
          row.key === null
            ? { state: "shredded", shreddedAt: (row.shredded_at ?? new Date(0)).toISOString() }
            : { state: "active", key: new Uint8Array(row.key) },
        );
      }
      return out;
    },
    async ensureKeys(tenant, memoryIds) {
      const ids = [...new Set(memoryIds)];
      const out = new Map<string, Uint8Array>();
      if (ids.length === 0) return out;
      await db.query(
        `insert into cairn_memory_keys (memory_id, tenant, key)
         select id, $2, key from unnest($1::uuid[], $3::bytea[]) as k(id, key)
         on conflict (memory_id) do nothing`,
        [ids, tenant, ids.map(() => Buffer.from(newContentKey()))],
      );
      for (const row of await readKeys(db, ids)) {
        if (row.key === null) {
          throw new CairnError(
            "illegal_transition",
            `memory ${row.memory_id} was purged; its text cannot change`,
            {
              hint: "a purged memory is gone for good; write a new memory instead",
              details: { id: row.memory_id },
            },
          );
        }
        out.set(row.memory_id, new Uint8Array(row.key));
      }
      return out;
    },
    async shred(memoryIds) {
      if (memoryIds.length === 0) return [];
      const { rows } = await db.query<{ memory_id: string }>(
        `update cairn_memory_keys set key = null, shredded_at = now()
          where memory_id = any($1::uuid[]) and key is not null
         returning memory_id::text`,
        [[...new Set(memoryIds)]],
      );
      return rows.map((r) => r.memory_id);
    },
  };
}
