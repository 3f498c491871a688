// The seals of memories (`cairn_memory_seals`), outside the log: ingest creates them
// and seals with them, projections open with them (`sealsFor` is a `SealRing`), and a
// purge destroys them. See contracts/src/sealed-content.ts for the scheme.
import { CairnError, newSeal, type SealRing, type SealState } from "@cairn/contracts";
import type pg from "pg";

export type MemorySealStore = SealRing & {
  /**
   * The seal of each memory, created for those that have none yet. A memory whose seal was
   * destroyed gets no new one: writing text to a purged memory is refused.
   */
  ensureSeals(tenant: string, memoryIds: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Destroys the seals of these memories; answers the ids whose seal was destroyed by this call. */
  shred(memoryIds: readonly string[]): Promise<string[]>;
};

type SealRow = { memory_id: string; seal: Buffer | null; shredded_at: Date | null };

async function readSeals(db: pg.Pool | pg.ClientBase, ids: readonly string[]): Promise<SealRow[]> {
  const { rows } = await db.query<SealRow>({
    name: "cairn-read-seals",
    text: "select memory_id::text, seal, shredded_at from cairn_memory_seals where memory_id = any($1::uuid[])",
    values: [ids],
  });
  return rows;
}

export function createMemorySealStore(db: pg.Pool): MemorySealStore {
  return {
    async sealsFor(memoryIds) {
      const out = new Map<string, SealState>();
      if (memoryIds.length === 0) return out;
      for (const row of await readSeals(db, [...new Set(memoryIds)])) {
        out.set(
          row.memory_id,
          row.seal === null
            ? { state: "shredded", shreddedAt: (row.shredded_at ?? new Date(0)).toISOString() }
            : { state: "active", seal: new Uint8Array(row.seal) },
        );
      }
      return out;
    },
    async ensureSeals(tenant, memoryIds) {
      const ids = [...new Set(memoryIds)];
      const out = new Map<string, Uint8Array>();
      if (ids.length === 0) return out;
      await db.query(
        `insert into cairn_memory_seals (memory_id, tenant, seal)
         select id, $2, seal from unnest($1::uuid[], $3::bytea[]) as k(id, seal)
         on conflict (memory_id) do nothing`,
        [ids, tenant, ids.map(() => Buffer.from(newSeal()))],
      );
      for (const row of await readSeals(db, ids)) {
        if (row.seal === null) {
          throw new CairnError(
            "illegal_transition",
            `memory ${row.memory_id} was purged; its text cannot change`,
            {
              hint: "a purged memory is gone for good; write a new memory instead",
              details: { id: row.memory_id },
            },
          );
        }
        out.set(row.memory_id, new Uint8Array(row.seal));
      }
      return out;
    },
    async shred(memoryIds) {
      if (memoryIds.length === 0) return [];
      const { rows } = await db.query<{ memory_id: string }>(
        `update cairn_memory_seals set seal = null, shredded_at = now()
          where memory_id = any($1::uuid[]) and seal is not null
         returning memory_id::text`,
        [[...new Set(memoryIds)]],
      );
      return rows.map((r) => r.memory_id);
    },
  };
}
