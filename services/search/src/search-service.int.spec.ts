import type { Principal } from "@cairn/contracts";
import { infraTest } from "@cairn/testing";
import { describe, expect } from "vitest";
import { type SearchUnderTest, startSearchUnderTest } from "./testing/search-under-test.ts";

const alice: Principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };

const test = infraTest.extend<{ search: SearchUnderTest }>({
  search: async ({ databaseUrl, redis, nats, redisPrefix }, use) => {
    const search = await startSearchUnderTest(
      { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, redisPrefix },
      { env: { CAIRN_LOG_LEVEL: process.env.TEST_LOG ?? "silent" } },
    );
    await use(search);
    await search.stop();
  },
});

describe("search service", () => {
  test("a recorded memory is found by every retriever and read by id and slot", async ({ search }) => {
    const { id, event } = await search.log.record({
      slot: "deploy-process",
      title: "How we deploy",
      content: "Run the database migrations before deploying the api service.",
      tags: ["ops"],
    });
    for (const mode of ["lexical", "vector", "hybrid"] as const) {
      const reply = await search.candidates({
        principal: alice,
        query: "deploy migrations",
        mode,
        afterPosition: event.position,
      });
      expect(reply.candidates.map((c) => c.id)).toEqual([id]);
      expect(reply.position).toBeGreaterThanOrEqual(event.position);
    }
    const byId = await search.get({ principal: alice, id });
    expect(byId.document.slot).toBe("deploy-process");
    const bySlot = await search.get({ principal: alice, slot: "deploy-process" });
    expect(bySlot.document.id).toBe(id);
  });
});
