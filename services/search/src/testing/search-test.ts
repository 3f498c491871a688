// `searchTest`: vitest's test with the search service running in-process against the worker's
// real Postgres, Redis and NATS, a fresh database and event stream per test, and an inspector
// of both read models.

import type { Principal } from "@cairn/contracts";
import { infraTest } from "@cairn/testing";
import { inspectReadModels, type ReadModelInspector } from "./read-model-inspector.ts";
import { type SearchUnderTest, startSearchUnderTest } from "./search-under-test.ts";

export const logLevel = process.env.CAIRN_TEST_LOG ?? "silent";

export const searchTest = infraTest.extend<{ search: SearchUnderTest; inspect: ReadModelInspector }>({
  search: async ({ databaseUrl, redis, nats, redisPrefix }, use) => {
    const search = await startSearchUnderTest(
      { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, redisPrefix },
      { env: { CAIRN_LOG_LEVEL: logLevel } },
    );
    await use(search);
    await search.stop();
  },
  inspect: async ({ search }, use) => {
    const inspector = await inspectReadModels(search.env);
    await use(inspector);
    await inspector.close();
  },
});

export const principals = {
  alice: { tenant: "acme", agent: "alice", role: "agent", primary: false },
  bob: { tenant: "acme", agent: "bob", role: "agent", primary: false },
  boss: { tenant: "acme", agent: "boss", role: "admin", primary: true },
  olga: { tenant: "globex", agent: "olga", role: "agent", primary: false },
} satisfies Record<string, Principal>;
