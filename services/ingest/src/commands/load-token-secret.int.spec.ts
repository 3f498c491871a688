import { createDatabasePool, migrateToLatest } from "@cairn/event-store";
import { infraTest } from "@cairn/testing";
import { describe, expect } from "vitest";
import { loadTokenSecret } from "./load-token-secret.ts";

describe("the dry-run token secret", () => {
  infraTest("is generated once in Postgres and the same for every ingest copy", async ({ databaseUrl }) => {
    await migrateToLatest(databaseUrl);
    const copies = [0, 1, 2].map(() =>
      createDatabasePool({ connectionString: databaseUrl, role: "cairn_app", max: 1 }),
    );
    try {
      const secrets = await Promise.all(copies.map((pool) => loadTokenSecret(pool, undefined)));
      expect(secrets[0]?.length).toBe(32);
      expect(secrets[1]).toEqual(secrets[0]);
      expect(secrets[2]).toEqual(secrets[0]);
      const fromEnv = await loadTokenSecret(copies[0] as (typeof copies)[number], "x".repeat(40));
      expect(Buffer.from(fromEnv).toString()).toBe("x".repeat(40));
    } finally {
      await Promise.all(copies.map((pool) => pool.end()));
    }
  });
});
