import { randomUUID } from "node:crypto";
import { createDatabasePool, createEventStore, migrateToLatest } from "@cairn/event-store";
import { testMeta } from "@cairn/memory-model/testing";
import { infraTest } from "@cairn/testing";
import { afterEach, describe, expect, vi } from "vitest";
import { run } from "../../scripts/commands/events.ts";

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe("pnpm cairn events", () => {
  infraTest("prints the log tail, one stream, and the relay's distance", async ({ databaseUrl }) => {
    await migrateToLatest(databaseUrl);
    const pool = createDatabasePool({ connectionString: databaseUrl, max: 1 });
    const store = createEventStore(pool);
    const meta = testMeta({ recordedAt: "2026-01-01T00:00:00.000Z" });
    for (const streamId of ["memory-a", "memory-b"]) {
      await store.appendToStream({
        streamId,
        streamType: "memory",
        expectedVersion: "no_stream",
        events: [{ eventId: randomUUID(), type: "memory.archived", data: { reason: null } }],
        meta,
      });
    }
    await pool.end();
    vi.stubEnv("CAIRN_DATABASE_URL", databaseUrl);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));

    expect(await run([])).toBe(0);
    expect(lines.filter((l) => l.includes("memory.archived"))).toHaveLength(2);
    expect(lines.at(-1)).toContain("last readable position 2; relay published up to 0 (2 behind)");

    lines.length = 0;
    expect(await run(["--stream", "memory-b", "--json"])).toBe(0);
    expect(lines.map((l) => JSON.parse(l).streamId)).toEqual(["memory-b"]);
  });
});
