// Postgres killed (-9) under a running search service, its connections cut in the pool and
// out of it: the process lives on, what Redis can answer is answered, what needs Postgres is
// `unavailable` (never `internal`), and once Postgres is back the service is ready and
// projects again by itself.
import { isCairnError } from "@cairn/contracts";
import { infraTest, startPostgres, waitFor } from "@cairn/testing";
import { describe, expect } from "vitest";
import { logLevel, principals } from "./testing/search-test.ts";
import { startSearchUnderTest } from "./testing/search-under-test.ts";

const { alice } = principals;

/** The error code a request failed with, or `ok`. */
async function outcome(request: Promise<unknown>): Promise<string> {
  try {
    await request;
    return "ok";
  } catch (error) {
    if (isCairnError(error)) return error.code;
    throw error;
  }
}

describe("search with a Postgres outage", () => {
  infraTest(
    "survives Postgres being killed, answers unavailable for what needs it, and recovers its readiness",
    async ({ redis, nats, redisPrefix }) => {
      await using postgres = await startPostgres();
      const databaseUrl = await postgres.createDatabase("search_outage");
      const search = await startSearchUnderTest(
        { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, redisPrefix },
        { env: { CAIRN_LOG_LEVEL: logLevel, CAIRN_SEARCH_CATCH_UP_MS: "300" } },
      );
      try {
        const before = await search.log.record({ content: "Written before the outage." });
        const end = await search.settle();

        await postgres.kill();
        // The lexical read model lives in Redis: it still answers.
        const lexical = await search.candidates({ principal: alice, query: "outage", mode: "lexical" });
        expect(lexical.candidates.map((c) => c.id)).toEqual([before.id]);
        const codes = await Promise.all([
          outcome(search.candidates({ principal: alice, query: "outage", mode: "vector" })),
          outcome(search.status()),
          outcome(search.history({ principal: alice, id: before.id })),
          outcome(search.candidates({ principal: alice, query: "outage", afterPosition: end })),
        ]);
        for (const code of codes) expect(["ok", "unavailable"]).toContain(code);
        expect(codes.slice(0, 2)).toEqual(["unavailable", "unavailable"]);
        const down = await search.service.health();
        expect(down.dependencies.postgres?.ok).toBe(false);

        await postgres.restart();
        await waitFor(async () => expect((await search.service.health()).ok).toBe(true), {
          timeoutMs: 20_000,
          description: "search to be ready again",
        });
        const after = await waitFor(() => search.log.record({ content: "Written after the outage." }), {
          timeoutMs: 20_000,
          description: "the log to take writes again",
        });
        await search.settle(20_000);
        const both = await search.candidates({ principal: alice, query: "outage", mode: "hybrid" });
        expect(both.candidates.map((c) => c.id).sort()).toEqual([before.id, after.id].sort());
        expect(both.unavailable).toEqual([]);
      } finally {
        await search.stop();
      }
    },
  );
});
