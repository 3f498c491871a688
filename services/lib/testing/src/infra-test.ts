// `infraTest`: vitest's `test` with real infrastructure. One Postgres, one Redis and one NATS
// per vitest worker, each started lazily the first time a test asks for it and stopped when
// the worker ends; per test, a fresh database and names that no other test uses.
import { Redis } from "ioredis";
import { test } from "vitest";
import { startNats } from "./nats.ts";
import { startPostgres } from "./postgres.ts";
import { startRedis } from "./redis.ts";
import { makeUniqueName } from "./unique-name.ts";

export const infraTest = test
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  .extend("postgres", { scope: "worker" }, async ({}, { onCleanup }) => {
    const postgres = await startPostgres();
    onCleanup(() => postgres.stop());
    return postgres;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  .extend("redis", { scope: "worker" }, async ({}, { onCleanup }) => {
    const redis = await startRedis();
    onCleanup(() => redis.stop());
    return redis;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  .extend("nats", { scope: "worker" }, async ({}, { onCleanup }) => {
    const nats = await startNats();
    onCleanup(() => nats.stop());
    return nats;
  })
  // A client of the worker's Redis for this test (disconnected after it).
  .extend("redisClient", async ({ redis }, { onCleanup }) => {
    const client = new Redis(redis.url);
    onCleanup(() => client.disconnect());
    return client;
  })
  .extend("uniqueName", () => makeUniqueName("t"))
  .extend("databaseName", async ({ postgres, uniqueName }, { onCleanup }) => {
    const name = `db_${uniqueName}`;
    await postgres.createDatabase(name);
    // Keep the cluster small; a database the test left connections open to stays (harmless:
    // the whole cluster goes at worker end), and a failure here must not fail the test.
    onCleanup(() =>
      postgres.dropDatabase(name, { ifUnused: true }).then(
        () => undefined,
        () => undefined,
      ),
    );
    return name;
  })
  .extend("databaseUrl", ({ postgres, databaseName }) => postgres.url(databaseName))
  .extend("redisPrefix", ({ uniqueName }) => `${uniqueName}:`);
