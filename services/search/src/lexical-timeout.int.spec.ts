// A lexical query that runs out of time on a busy Redis fails as `unavailable` (a 503 the
// caller retries), never answering with the part of its matches found in time: the Redis the
// tests start is run as Cairn runs it (`rediSearchModuleArgs`), only with a 1 ms limit, and a
// query over 30,000 matching documents cannot finish in it.
import { isCairnError } from "@cairn/contracts";
import { infraTest, rediSearchModuleArgs, startRedis } from "@cairn/testing";
import { describe, expect } from "vitest";
import { inspectReadModels } from "./testing/read-model-inspector.ts";
import { logLevel, principals } from "./testing/search-test.ts";
import { startSearchUnderTest } from "./testing/search-under-test.ts";

const { alice } = principals;
const copies = 30_000;

/** Cairn's module arguments with the query time limit set to `ms`. */
function withTimeLimit(args: readonly string[], ms: number): string[] {
  return args.map((arg, i) => (args[i - 1]?.toUpperCase() === "TIMEOUT" ? String(ms) : arg));
}

describe("a lexical query out of time", () => {
  infraTest(
    "fails as unavailable instead of answering part of its matches",
    async ({ databaseUrl, nats }) => {
      expect(rediSearchModuleArgs).toContain("TIMEOUT");
      await using redis = await startRedis({ moduleArgs: withTimeLimit(rediSearchModuleArgs, 1) });
      const search = await startSearchUnderTest(
        { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, redisPrefix: "cairn:timeout:" },
        { env: { CAIRN_LOG_LEVEL: logLevel } },
      );
      const inspect = await inspectReadModels(search.env);
      try {
        const { id } = await search.log.record({ content: "steady ferns by the north wall" });
        await search.settle();
        const small = await search.candidates({ principal: alice, query: "steady ferns", mode: "lexical" });
        expect(small.candidates.map((c) => c.id)).toEqual([id]);

        // 30,000 more documents in the index that match the query as the memory does.
        const { lexicalStore, redis: client } = inspect.models;
        const g = (await lexicalStore.activeGeneration()) as number;
        const fields = Object.entries(await client.hgetall(lexicalStore.docKey(g, id))).flat();
        for (let start = 0; start < copies; start += 2000) {
          const pipeline = client.pipeline();
          for (let i = start; i < start + 2000; i += 1) {
            const key = `${lexicalStore.docKey(g, id)}-copy-${i}`;
            if (lexicalStore.module.generation === 1)
              pipeline.call("FT.ADD", lexicalStore.indexName(g), key, "1.0", "FIELDS", ...fields);
            else pipeline.hset(key, ...fields);
          }
          await pipeline.exec();
        }

        const failure = await search
          .candidates({ principal: alice, query: "steady ferns", mode: "lexical", candidateK: 500 })
          .then(
            (reply) => `answered with ${reply.candidates.length} candidates`,
            (error: unknown) => (isCairnError(error) ? error.code : String(error)),
          );
        expect(failure).toBe("unavailable");
        // Hybrid goes on with the vector retriever and says the lexical one was away.
        const hybrid = await search.candidates({ principal: alice, query: "steady ferns", mode: "hybrid" });
        expect(hybrid.unavailable).toEqual(["lexical"]);
        expect(hybrid.candidates.map((c) => c.id)).toEqual([id]);
      } finally {
        await inspect.close();
        await search.stop();
      }
    },
  );
});
