// Sealed memory text (crypto-shredding): the projections open it with the memory's content
// key; once the key is destroyed and `memory.purged` recorded, neither read model keeps any
// text of the memory, live or after a rebuild.
import { randomUUID } from "node:crypto";
import { type MemoryDocument, sealMemoryFields } from "@cairn/contracts";
import { createMemorySealStore } from "@cairn/event-store";
import { rebuildFromHost } from "@cairn/projection-runtime";
import { describe, expect } from "vitest";
import { projectionHostOf } from "../open-read-models.ts";
import { principals, searchTest as test } from "../testing/search-test.ts";

const { boss } = principals;
const secret = "Zanzibarian";
const content = `${secret} Quaglieri keeps the vault combination in the red notebook.`;

async function redisHolds(redis: import("ioredis").Redis, needle: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === "hash"
          ? JSON.stringify(await redis.hgetall(key))
          : type === "string"
            ? await redis.get(key)
            : "";
      if (value?.includes(needle)) found.push(key);
    }
  } while (cursor !== "0");
  return found;
}

describe("sealed memory text", () => {
  test("is opened for the read models and is gone from them after a purge, even after a rebuild", async ({
    search,
    inspect,
  }) => {
    const keys = createMemorySealStore(search.pool);
    const id = randomUUID();
    const key = (await keys.ensureSeals("acme", [id])).get(id) as Uint8Array;
    const sealed = sealMemoryFields(
      {
        content,
        title: `${secret} notebook`,
        entities: [{ text: `${secret} Quaglieri`, type: "person" as const }],
      },
      key,
      id,
    );
    await search.log.record({ id, slot: "vault", ...sealed });
    await search.settle();

    const read = await search.get({ principal: boss, id });
    expect(read.document).toMatchObject({ content, title: `${secret} notebook` });
    expect(read.document.entities.map((e) => e.text)).toEqual([`${secret} Quaglieri`]);
    const hits = await search.candidates({ principal: boss, query: secret, mode: "lexical" });
    expect(hits.candidates.map((c) => c.id)).toEqual([id]);

    // Purge: the memory is deleted, its seal destroyed, `memory.purged` recorded.
    await search.log.change(id, "memory.deleted", { reason: null });
    await keys.shred([id]);
    await search.log.change(id, "memory.purged", { reason: "retention", runId: null });
    await search.settle();

    const expectNoText = (doc: MemoryDocument | null | undefined) => {
      expect(doc).toMatchObject({ status: "deleted", content: "", title: "", entities: [], slot: "vault" });
      expect(doc?.purgedAt).toEqual(expect.any(String));
    };
    expectNoText(await inspect.lexicalDocument(id));
    expectNoText(await inspect.vectorDocument(id));
    expectNoText((await search.get({ principal: boss, id })).document);
    const after = await search.candidates({
      principal: boss,
      query: secret,
      mode: "hybrid",
      filters: { tier: "memory", status: ["deleted", "active"], includeExpired: true },
    });
    expect(JSON.stringify(after)).not.toContain(secret);
    expect(await redisHolds(inspect.models.redis, secret)).toEqual([]);
    const { rows } = await search.pool.query(
      "select count(*)::int as n from cairn_events where data::text like $1",
      [`%${secret}%`],
    );
    expect(rows[0]).toEqual({ n: 0 });

    // A rebuild replays the log: the sealed text cannot be opened any more.
    for (const name of ["search.lexical", "search.vector"] as const) {
      await rebuildFromHost(projectionHostOf(inspect.models), name, { batchSize: 50, dropDelayMs: 10 });
    }
    expectNoText(await inspect.lexicalDocument(id));
    expectNoText(await inspect.vectorDocument(id));
    expect(await redisHolds(inspect.models.redis, secret)).toEqual([]);
    const table = (await inspect.models.vector.servingGeneration()).tableName;
    const vectorRows = await search.pool.query(
      `select count(*)::int as n from cairn_search.${table}_documents where document::text like $1`,
      [`%${secret}%`],
    );
    expect(vectorRows.rows[0]).toEqual({ n: 0 });
  });
});
