import type { ProjectionName } from "@cairn/contracts";
import { migrateToLatest, serviceDatabaseRole } from "@cairn/event-store";
import { createLogger } from "@cairn/telemetry";
import { infraTest, waitFor } from "@cairn/testing";
import pg from "pg";
import { describe, expect } from "vitest";
import { type ProjectionLeases, startProjectionLeases } from "./projection-leases.ts";

const logger = createLogger("leases-test", "silent");
const names: ProjectionName[] = ["search.lexical", "search.vector"];

/** A copy of a service: its leases, and the projections it applies as it is told to. */
async function copy(databaseUrl: string, instance: string) {
  const applying = new Set<ProjectionName>();
  const history: string[] = [];
  const leases: ProjectionLeases = await startProjectionLeases({
    connectionString: databaseUrl,
    role: serviceDatabaseRole,
    service: "search",
    instance,
    names,
    acquired: async (name) => {
      expect(applying.has(name), `${instance} applies ${name} twice`).toBe(false);
      applying.add(name);
      history.push(`+${name}`);
    },
    released: async (name) => {
      applying.delete(name);
      history.push(`-${name}`);
    },
    logger,
    checkMs: 100,
  });
  return { instance, leases, applying, history };
}

describe("projection leases", () => {
  infraTest(
    "copies share a service's projections, each applied by one copy, and take over those of a copy that goes",
    async ({ databaseUrl }) => {
      await migrateToLatest(databaseUrl);
      const a = await copy(databaseUrl, "search-a");
      try {
        // Alone, a copy applies every projection.
        expect([...a.applying].sort()).toEqual([...names].sort());
        const b = await copy(databaseUrl, "search-b");
        try {
          // A second copy: one projection each, none applied twice, none left out.
          await waitFor(() => a.applying.size === 1 && b.applying.size === 1, {
            timeoutMs: 10_000,
            description: "the copies to share the projections",
          });
          expect(new Set([...a.applying, ...b.applying]).size).toBe(2);
          const holders = await a.leases.holders();
          for (const name of a.applying) expect(holders[name]).toBe("search-a");
          for (const name of b.applying) expect(holders[name]).toBe("search-b");
        } finally {
          await b.leases.stop();
        }
        // The copy that stopped gave its projection back: the other applies both again.
        await waitFor(() => a.applying.size === 2, { timeoutMs: 10_000, description: "a to take both back" });
        expect(b.applying.size).toBe(0);
      } finally {
        await a.leases.stop();
      }
      expect(a.applying.size).toBe(0);
    },
  );

  infraTest(
    "a copy whose lease connection is cut stops applying, and another copy takes over",
    async ({ databaseUrl }) => {
      await migrateToLatest(databaseUrl);
      const a = await copy(databaseUrl, "search-a");
      const b = await copy(databaseUrl, "search-b");
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        await waitFor(() => a.applying.size === 1 && b.applying.size === 1, { timeoutMs: 10_000 });
        const [lost] = [...a.applying];
        const seen = a.history.length;
        // The server ends a's session (a network cut, a restart of its backend).
        await admin.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'cairn-leases:search:search-a'",
        );
        // a stops applying what it held the moment it learns its lease went.
        await waitFor(() => a.history.slice(seen).includes(`-${lost}`), {
          timeoutMs: 10_000,
          description: "a to stop applying",
        });
        // Then the copies share both again, each applied by one copy.
        await waitFor(() => a.applying.size === 1 && b.applying.size === 1, { timeoutMs: 10_000 });
        expect(new Set([...a.applying, ...b.applying]).size).toBe(2);
      } finally {
        await admin.end();
        await a.leases.stop();
        await b.leases.stop();
      }
    },
  );
});
