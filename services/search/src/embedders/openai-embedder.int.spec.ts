// The `openai` embedder against a local server speaking the OpenAI embeddings protocol:
// batching, retries with backoff, the dimension learnt from the first reply, the cache by
// content hash and model, and the search service running on it end to end.
import { randomUUID } from "node:crypto";
import { migrateToLatest } from "@cairn/event-store";
import { infraTest, waitFor } from "@cairn/testing";
import pg from "pg";
import { describe, expect, test } from "vitest";
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from "../testing/fake-embeddings-server.ts";
import { inspectReadModels } from "../testing/read-model-inspector.ts";
import { logLevel, principals } from "../testing/search-test.ts";
import { startSearchUnderTest } from "../testing/search-under-test.ts";
import { isEmbedderError } from "./embedder.ts";
import { withEmbeddingCache } from "./embedding-cache.ts";
import { embedLocally } from "./local-embedder.ts";
import { createOpenAiEmbedder } from "./openai-embedder.ts";

const fast = { initialBackoffMs: 5, maxBackoffMs: 20 };

async function withServer(fn: (server: FakeEmbeddingsServer) => Promise<void>) {
  const server = await startFakeEmbeddingsServer();
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

describe("openai embedder", () => {
  test("sends batches in order with the model and key, and learns the dimension", () =>
    withServer(async (server) => {
      const embedder = createOpenAiEmbedder({
        baseUrl: server.baseUrl,
        model: "fake-embed",
        apiKey: "sk-test",
        batchSize: 64,
      });
      expect(embedder.model).toBe("openai:fake-embed");
      expect(await embedder.dimensions()).toBe(64);
      const texts = Array.from({ length: 150 }, (_, i) => `text number ${i}`);
      const vectors = await embedder.embed(texts);
      expect(vectors).toEqual(texts.map((t) => embedLocally(t, 64)));
      expect(server.requests.map((r) => r.input.length)).toEqual([1, 64, 64, 22]);
      expect(
        server.requests.every((r) => r.model === "fake-embed" && r.authorization === "Bearer sk-test"),
      ).toBe(true);
    }));

  test("asks for a shortened dimension when configured; the model name says so", () =>
    withServer(async (server) => {
      const embedder = createOpenAiEmbedder({ baseUrl: server.baseUrl, model: "fake-embed", dimensions: 32 });
      expect(embedder.model).toBe("openai:fake-embed:32");
      expect((await embedder.embed(["x"]))[0]).toHaveLength(32);
      expect(server.requests[0]?.dimensions).toBe(32);
    }));

  test("retries 429 and 5xx with backoff (honouring Retry-After), not a 400", () =>
    withServer(async (server) => {
      const embedder = createOpenAiEmbedder({ baseUrl: server.baseUrl, model: "m", maxRetries: 3, ...fast });
      server.failNext(1, 429, "0");
      server.failNext(2, 503);
      expect(await embedder.embed(["retry me"])).toEqual([embedLocally("retry me", 64)]);
      expect(server.requests).toHaveLength(4);

      server.failNext(1, 400);
      const refused = await embedder.embed(["bad"]).catch((e: unknown) => e);
      expect(isEmbedderError(refused) && refused.status).toBe(400);
      expect(server.requests).toHaveLength(5);

      server.breakDown(500);
      const exhausted = await embedder.embed(["never"]).catch((e: unknown) => e);
      expect(isEmbedderError(exhausted) && exhausted.code).toBe("retries_exhausted");
      expect(server.requests).toHaveLength(9);
    }));

  test("an unreachable endpoint is an embedder error, not a crash", async () => {
    const embedder = createOpenAiEmbedder({
      baseUrl: "http://127.0.0.1:9/v1",
      model: "m",
      maxRetries: 1,
      ...fast,
    });
    const error = await embedder.embed(["x"]).catch((e: unknown) => e);
    expect(isEmbedderError(error) && error.code).toBe("retries_exhausted");
  });
});

describe("embedding cache", () => {
  infraTest(
    "reuses embeddings by content hash and model across restarts, and forgets a purged memory's",
    async ({ databaseUrl }) => {
      await migrateToLatest(databaseUrl);
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
      pool.on("error", () => {}); // idle clients still closing when the server stops
      const [m1, m2, m3] = [randomUUID(), randomUUID(), randomUUID()];
      try {
        await withServer(async (server) => {
          const remote = createOpenAiEmbedder({ baseUrl: server.baseUrl, model: "fake-embed" });
          const cached = withEmbeddingCache(remote, { pool });
          await cached.embed(["a", "b"], { owners: [m1, m2] });
          await cached.embed(["a", "b", "c", "c"], { owners: [m1, m2, m3, m3] });
          expect(server.requests.map((r) => r.input)).toEqual([["a", "b"], ["c"]]);

          // A new process: empty memory, same Postgres (float4 precision when read back).
          const fresh = () =>
            withEmbeddingCache(createOpenAiEmbedder({ baseUrl: server.baseUrl, model: "fake-embed" }), {
              pool,
            });
          const [c, a] = await fresh().embed(["c", "a"]);
          for (const [got, want] of [
            [c, embedLocally("c", 64)],
            [a, embedLocally("a", 64)],
          ] as const) {
            for (const [i, v] of (got as number[]).entries()) expect(v).toBeCloseTo(want[i] as number, 6);
          }
          expect(server.requests).toHaveLength(2);

          // Query texts (no owner) are embedded but not kept.
          await cached.embed(["a query"]);
          await fresh().embed(["a query"]);
          expect(server.requests).toHaveLength(4);

          // Another model is another vector space: nothing shared.
          await withEmbeddingCache(createOpenAiEmbedder({ baseUrl: server.baseUrl, model: "other" }), {
            pool,
          }).embed(["a"], { owners: [m1] });
          expect(server.requests).toHaveLength(5);

          // Purging m1 forgets what was embedded from its text, in memory and in Postgres.
          await cached.forget?.([m1]);
          await cached.embed(["a"], { owners: [m1] });
          expect(server.requests).toHaveLength(6);
          const { rows } = await pool.query(
            "select memory_id::text from cairn_search.embedding_cache where memory_id = $1",
            [m1],
          );
          expect(rows).toHaveLength(1);
          await cached.forget?.([m1]);
          const left = await pool.query(
            "select count(*)::int as n from cairn_search.embedding_cache where memory_id = $1",
            [m1],
          );
          expect(left.rows[0]).toEqual({ n: 0 });
        });
      } finally {
        await pool.end();
      }
    },
  );
});

describe("search on an OpenAI-compatible endpoint", () => {
  infraTest(
    "projects and queries with the remote model; an endpoint outage delays vectors, then they converge",
    async ({ databaseUrl, redis, nats, redisPrefix }) => {
      const server = await startFakeEmbeddingsServer({ dimensions: 48 });
      const search = await startSearchUnderTest(
        { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, redisPrefix },
        {
          env: {
            CAIRN_LOG_LEVEL: logLevel,
            CAIRN_EMBEDDER: "openai",
            CAIRN_EMBEDDING_URL: server.baseUrl,
            CAIRN_EMBEDDING_MODEL: "fake-embed",
            CAIRN_EMBEDDING_MAX_RETRIES: "0",
          },
        },
      );
      const inspect = await inspectReadModels(search.env);
      try {
        const first = await search.log.record({ content: "Remote vectors for the greenhouse." });
        await search.settle();
        const reply = await search.candidates({
          principal: principals.alice,
          query: "greenhouse",
          mode: "vector",
        });
        expect(reply.embeddingModel).toBe("openai:fake-embed");
        expect(reply.candidates.map((c) => c.id)).toEqual([first.id]);
        expect(await inspect.embedding(first.id)).toHaveLength(48);

        server.breakDown(503);
        const second = await search.log.record({ content: "Written while the endpoint is down." });
        await waitFor(async () => expect(await inspect.lexicalDocument(second.id)).not.toBeNull());
        expect(await inspect.vectorDocument(second.id)).toBeNull();
        server.heal();
        await search.settle(20_000);
        const stored = (await inspect.embedding(second.id)) as number[];
        const expected = embedLocally("Written while the endpoint is down.", 48);
        expect(stored).toHaveLength(48);
        // Kept in half precision: within 2^-11 of each value (below 1).
        for (const [i, v] of stored.entries())
          expect(Math.abs(v - (expected[i] as number))).toBeLessThanOrEqual(2 ** -11);
      } finally {
        await inspect.close();
        await search.stop();
        await server.close();
      }
    },
  );
});
