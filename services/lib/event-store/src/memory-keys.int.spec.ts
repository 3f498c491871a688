import { randomUUID } from "node:crypto";
import { infraTest } from "@cairn/testing";
import { describe, expect } from "vitest";
import { createDatabasePool, serviceDatabaseRole } from "./create-database-pool.ts";
import { createMemoryKeyStore } from "./memory-keys.ts";
import { migrateToLatest } from "./migrate-to-latest.ts";

describe("memory content keys", () => {
  infraTest("creates a key once, reads it back, and destroys it for good", async ({ databaseUrl }) => {
    await migrateToLatest(databaseUrl);
    const pool = createDatabasePool({ connectionString: databaseUrl, role: serviceDatabaseRole, max: 2 });
    try {
      const keys = createMemoryKeyStore(pool);
      const a = randomUUID();
      const b = randomUUID();
      const first = await keys.ensureKeys("acme", [a, b]);
      const again = await keys.ensureKeys("acme", [a]);
      expect(first.get(a)).toHaveLength(32);
      expect(again.get(a)).toEqual(first.get(a));
      expect(first.get(b)).not.toEqual(first.get(a));

      const states = await keys.keysFor([a, b, randomUUID()]);
      expect(states.get(a)).toEqual({ state: "active", key: first.get(a) });
      expect(states.size).toBe(2);

      expect(await keys.shred([a, randomUUID()])).toEqual([a]);
      expect(await keys.shred([a])).toEqual([]);
      expect((await keys.keysFor([a])).get(a)).toMatchObject({ state: "shredded" });
      await expect(keys.ensureKeys("acme", [a])).rejects.toMatchObject({ code: "illegal_transition" });
      // The service role can never remove the tombstone.
      await expect(pool.query("delete from cairn_memory_keys")).rejects.toThrow(/permission denied/);
    } finally {
      await pool.end();
    }
  });
});
