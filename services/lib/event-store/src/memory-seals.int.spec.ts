import { randomUUID } from "node:crypto";
import { infraTest } from "@cairn/testing";
import { describe, expect } from "vitest";
import { createDatabasePool, serviceDatabaseRole } from "./create-database-pool.ts";
import { createMemorySealStore } from "./memory-seals.ts";
import { migrateToLatest } from "./migrate-to-latest.ts";

describe("memory seals", () => {
  infraTest("creates a seal once, reads it back, and destroys it for good", async ({ databaseUrl }) => {
    await migrateToLatest(databaseUrl);
    const pool = createDatabasePool({ connectionString: databaseUrl, role: serviceDatabaseRole, max: 2 });
    try {
      const seals = createMemorySealStore(pool);
      const a = randomUUID();
      const b = randomUUID();
      const first = await seals.ensureSeals("acme", [a, b]);
      const again = await seals.ensureSeals("acme", [a]);
      expect(first.get(a)).toHaveLength(32);
      expect(again.get(a)).toEqual(first.get(a));
      expect(first.get(b)).not.toEqual(first.get(a));

      const states = await seals.sealsFor([a, b, randomUUID()]);
      expect(states.get(a)).toEqual({ state: "active", seal: first.get(a) });
      expect(states.size).toBe(2);

      expect(await seals.shred([a, randomUUID()])).toEqual([a]);
      expect(await seals.shred([a])).toEqual([]);
      expect((await seals.sealsFor([a])).get(a)).toMatchObject({ state: "shredded" });
      await expect(seals.ensureSeals("acme", [a])).rejects.toMatchObject({ code: "illegal_transition" });
      // The service role can never remove the tombstone.
      await expect(pool.query("delete from cairn_memory_seals")).rejects.toThrow(/permission denied/);
    } finally {
      await pool.end();
    }
  });
});
