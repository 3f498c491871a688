// `pnpm cairn rebuild`'s engine against real read models: a new generation is built from the
// log while the old one serves, live writes continue through the switch without loss or
// repetition, an interrupted rebuild continues where it stopped, and a model change is a
// vector rebuild.
import { setTimeout as sleep } from "node:timers/promises";
import { type MemoryDocument, streamIdFor } from "@cairn/contracts";
import {
  type Projection,
  RebuildAbortedError,
  type RebuildProgress,
  rebuildFromHost,
} from "@cairn/projection-runtime";
import { describe, expect } from "vitest";
import { createLocalEmbedder } from "../embedders/local-embedder.ts";
import { projectionHostOf } from "../open-read-models.ts";
import { lexicalAnalysisVersion } from "../projections/lexical/lexical-index.ts";
import { vectorPartitions } from "../projections/vector/vector-generations.ts";
import { inspectReadModels, type ReadModelInspector } from "../testing/read-model-inspector.ts";
import { principals, searchTest as test } from "../testing/search-test.ts";
import type { SearchUnderTest } from "../testing/search-under-test.ts";

const { alice } = principals;

function rebuild(
  inspect: ReadModelInspector,
  name: "lexical" | "vector",
  extra: NonNullable<Parameters<typeof rebuildFromHost>[2]> = {},
) {
  return rebuildFromHost(projectionHostOf(inspect.models), `search.${name}`, {
    batchSize: 50,
    // As in a deployment: a query that began on the old generation finishes before it goes
    // (a busy machine's query takes more than a tenth of a second).
    dropDelayMs: 2000,
    ...extra,
  });
}

/** Every document must be at its stream's last version in the log, with no dead letters. */
async function expectCurrentWithLog(search: SearchUnderTest, inspect: ReadModelInspector, ids: string[]) {
  const { lexical, vector } = await inspect.allDocuments();
  for (const id of ids) {
    const events = await search.log.store.readStream(streamIdFor("memory", id));
    const version = events.at(-1)?.version;
    expect((lexical.get(id) as MemoryDocument | undefined)?.version, `lexical ${id}`).toBe(version);
    expect((vector.get(id) as MemoryDocument | undefined)?.version, `vector ${id}`).toBe(version);
  }
  expect(lexical.size).toBe(ids.length);
  expect(vector.size).toBe(ids.length);
  const { rows } = await search.pool.query("select * from cairn_projections.dead_letters");
  expect(rows).toEqual([]);
}

describe("rebuild", () => {
  test("rebuilds both read models while queries and writes continue, losing and repeating nothing", async ({
    search,
    inspect,
  }) => {
    const ids: string[] = [];
    for (let i = 0; i < 120; i += 1)
      ids.push((await search.log.record({ content: `steady memory ${i} about ferns` })).id);
    await search.settle();
    const before = await inspect.generations();

    let writing = true;
    const writer = (async () => {
      let i = 0;
      while (writing) {
        const { id } = await search.log.record({ content: `written during the rebuild ${i} about ferns` });
        ids.push(id);
        await search.log.change(id, "memory.revised", { title: `revision ${i}` });
        i += 1;
        await sleep(5);
      }
    })();
    let reading = true;
    let reads = 0;
    const reader = (async () => {
      while (reading) {
        for (const mode of ["lexical", "vector"] as const) {
          const reply = await search.candidates({
            principal: alice,
            query: "steady ferns",
            mode,
            candidateK: 500,
          });
          // The old generation serves until the switch, the new one after: never a partial one.
          // (Lexical search is exact; HNSW is approximate and may miss a few near-duplicates.)
          expect(reply.candidates.length, mode).toBeGreaterThanOrEqual(mode === "lexical" ? 120 : 100);
          reads += 1;
        }
      }
    })();

    const phases = new Set<string>();
    const lexical = await rebuild(inspect, "lexical", { onProgress: (p) => phases.add(p.phase) });
    const vector = await rebuild(inspect, "vector");
    writing = false;
    await writer;
    reading = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect([...phases]).toEqual(["replay", "index", "switch", "done"]);

    expect(lexical.previous).toBe(before.lexical);
    expect(vector.previous).toBe(before.vector);
    expect(await inspect.generations()).toEqual({ lexical: lexical.generation, vector: vector.generation });

    // Live events after the switch land in the new generations.
    const after = await search.log.record({ content: "after the rebuild, about ferns" });
    ids.push(after.id);
    await search.settle();
    await expectCurrentWithLog(search, inspect, ids);
    expect(await inspect.checkpoints()).toEqual({
      lexical: after.event.position,
      vector: after.event.position,
    });

    // The old generations are gone.
    await expect(
      inspect.models.redis.call("FT.INFO", inspect.models.lexicalStore.indexName(before.lexical as number)),
    ).rejects.toThrow();
    const { rows } = await search.pool.query(
      "select generation from cairn_projections.generations where projection = 'search.vector'",
    );
    expect(rows).toEqual([{ generation: vector.generation }]);
  });

  test("an interrupted rebuild continues where it stopped when run again", async ({ search, inspect }) => {
    const ids: string[] = [];
    for (let i = 0; i < 150; i += 1) ids.push((await search.log.record({ content: `memory ${i}` })).id);
    await search.settle();
    const before = await inspect.generations();

    for (const name of ["lexical", "vector"] as const) {
      const abort = new AbortController();
      await expect(
        rebuild(inspect, name, {
          signal: abort.signal,
          onProgress: (p: RebuildProgress) => {
            if (p.events >= 50) abort.abort();
          },
        }),
      ).rejects.toBeInstanceOf(RebuildAbortedError);
      // Still serving from the old generation.
      expect((await inspect.generations())[name]).toBe(before[name]);
      const rerun = await rebuild(inspect, name);
      expect(rerun.resumed).toBe(true);
      expect(rerun.events).toBeLessThan(150);
    }
    await expectCurrentWithLog(search, inspect, ids);
  });

  test.for(["lexical", "vector"] as const)(
    "a %s rebuild that meets a memory its store refuses sets that one aside and builds all the others",
    async (name, { search, inspect }) => {
      // Enough batches of 50 that the one the refused memory is in is read while the batch
      // before it is being written, and some follow it.
      const ids: string[] = [];
      let refused = "";
      for (let i = 0; i < 300; i += 1) {
        const slot = i === 170 ? "ops/unstorable" : `ops/fine-${i}`;
        const { id } = await search.log.record({ content: `memory ${i} about lichens`, slot });
        if (i === 170) refused = id;
        else ids.push(id);
      }
      await search.settle();
      const before = await inspect.generations();
      const host = projectionHostOf(inspect.models);
      const faulty = (projection: Projection): Projection => ({
        ...projection,
        async apply(batch) {
          const unstorable = batch.events.some(
            (e) => e.type === "memory.recorded" && (e.data as { slot?: string }).slot === "ops/unstorable",
          );
          if (unstorable) throw new Error("this store cannot hold that memory (injected fault)");
          return projection.apply(batch);
        },
      });
      const result = await rebuildFromHost(
        {
          ...host,
          projections: host.projections.map((p) => (p.name === `search.${name}` ? faulty(p) : p)),
        },
        `search.${name}`,
        { batchSize: 50, dropDelayMs: 0, retry: { baseMs: 10, maxMs: 40, maxAttempts: 3 } },
      );

      expect(result.previous).toBe(before[name]);
      expect((await inspect.generations())[name]).toBe(result.generation);
      const documents = (await inspect.allDocuments())[name];
      expect([...documents.keys()].sort()).toEqual([...ids].sort());
      const { rows } = await search.pool.query<{ projection: string; stream_id: string; reason: string }>(
        "select projection, stream_id, reason from cairn_projections.dead_letters",
      );
      expect(rows).toEqual([
        { projection: `search.${name}`, stream_id: streamIdFor("memory", refused), reason: "apply_failed" },
      ]);
      const found = await search.candidates({
        principal: alice,
        query: "lichens",
        mode: name,
        candidateK: 500,
      });
      expect(found.candidates.length).toBeGreaterThanOrEqual(name === "lexical" ? ids.length : 250);
    },
  );

  test("a vector rebuild keeps up with memories that change in the batch after the one that wrote them", async ({
    search,
    inspect,
  }) => {
    // Each memory is changed about 50 events after it was recorded, in the next batch of 50,
    // which a rebuild reads and folds while the batch before is still being written: every
    // other change gives it new text (a new embedding), the others only tags (the embedding
    // written the batch before is kept).
    const ids: string[] = [];
    const texts = new Map<string, string>();
    for (let i = 0; i < 260; i += 1) {
      const content = `memory ${i} about liverworts`;
      const { id } = await search.log.record({ content });
      ids.push(id);
      texts.set(id, content);
      const earlier = ids[i - 25];
      if (earlier === undefined) continue;
      if (i % 2 === 0) {
        const revised = `${texts.get(earlier)}, revised in a later batch`;
        await search.log.change(earlier, "memory.revised", { content: revised });
        texts.set(earlier, revised);
      } else {
        await search.log.change(earlier, "memory.revised", { tags: ["later"] });
      }
    }
    await search.settle();
    const live = new Map<string, number[] | null>();
    for (const id of ids) live.set(id, await inspect.embedding(id));

    await rebuild(inspect, "vector", { dropDelayMs: 0 });
    await expectCurrentWithLog(search, inspect, ids);
    const { vector } = await inspect.allDocuments();
    for (const id of ids) {
      const document = vector.get(id) as MemoryDocument;
      expect(document.content, id).toBe(texts.get(id));
      // The rebuilt embedding is the one of the final text: what the live projection holds.
      const embedding = await inspect.embedding(id);
      expect(embedding, id).not.toBeNull();
      expect(embedding, id).toEqual(live.get(id));
    }
  });

  test("only one rebuild of a projection runs at a time", async ({ search, inspect }) => {
    for (let i = 0; i < 100; i += 1) await search.log.record({ content: `memory ${i}` });
    await search.settle();
    let second: Promise<unknown> | undefined;
    await rebuild(inspect, "lexical", {
      onProgress: () => {
        second ??= rebuild(inspect, "lexical").then(
          () => "finished",
          (error: unknown) => error,
        );
      },
    });
    expect(await second).toMatchObject({ code: "precondition_required" });
  });

  test("a lexical index built by an older text analysis is rebuilt at start while it serves", async ({
    search,
    inspect,
  }) => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i += 1)
      ids.push((await search.log.record({ content: `deployments of fern ${i}` })).id);
    const expired = await search.log.record({ content: "deployments of fern, expired" });
    await search.log.change(expired.id, "memory.invalidated", {
      invalidAt: "2026-01-01T00:00:00.000Z",
      reason: null,
    });
    await search.settle();
    const old = (await inspect.generations()).lexical as number;
    // As an older version left it: no version recorded on the generation, no expiry sets (so
    // "not expired" must be asked of it), and its tier and status as tags of their own (which
    // today's index does not keep: a search asks for them as part of `reach`).
    const { redis, lexicalStore, module } = inspect.models;
    const prefix = lexicalStore.generations.prefix(old);
    await redis.del(`${prefix}version`);
    const sets = await redis.keys(`${prefix}expiring:*`);
    expect(sets.length).toBeGreaterThan(0);
    await redis.del(...sets);
    await redis.call("FT.ALTER", lexicalStore.indexName(old), "SCHEMA", "ADD", "tier", "TAG");
    await redis.call("FT.ALTER", lexicalStore.indexName(old), "SCHEMA", "ADD", "status", "TAG");
    for (const id of [...ids, expired.id]) {
      const key = lexicalStore.docKey(old, id);
      const fields = ["tier", "memory", "status", "active"];
      if (module.generation === 1)
        await redis.call(
          "FT.ADD",
          lexicalStore.indexName(old),
          key,
          "1.0",
          "REPLACE",
          "PARTIAL",
          "FIELDS",
          ...fields,
        );
      else await redis.hset(key, ...fields);
    }
    await search.restartService();
    // While the rebuild runs, the old generation answers by its own fields.
    const serving = await search.candidates({ principal: alice, query: "deploying ferns", mode: "lexical" });
    expect(serving.candidates.map((c) => c.id).sort()).toEqual([...ids].sort());

    await expect.poll(async () => (await inspect.generations()).lexical, { timeout: 20_000 }).not.toBe(old);
    const fresh = (await inspect.generations()).lexical as number;
    expect(await inspect.models.lexicalStore.generations.version(fresh)).toBe(lexicalAnalysisVersion);
    const found = await search.candidates({ principal: alice, query: "deploying ferns", mode: "lexical" });
    expect(found.candidates.map((c) => c.id).sort()).toEqual([...ids].sort());
    await expectCurrentWithLog(search, inspect, [...ids, expired.id]);
  });

  test("a vector generation of single-precision embeddings with documents in its rows answers and takes writes, and is rebuilt at start", async ({
    search,
    inspect,
  }) => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i += 1)
      ids.push((await search.log.record({ content: `precision note ${i} about lichens` })).id);
    await search.settle();
    const old = (await inspect.generations()).vector as number;
    const table = `cairn_search.vectors_g${old}`;
    const columnType = async (generation: number) => {
      const { rows } = await search.pool.query<{ type: string }>(
        `select format_type(atttypid, atttypmod) as type from pg_attribute
          where attrelid = $1::regclass and attname = 'embedding'`,
        [`cairn_search.vectors_g${generation}`],
      );
      return rows[0]?.type;
    };
    const foundByVectors = async () =>
      (
        await search.candidates({ principal: alice, query: "lichens", mode: "vector", candidateK: 50 })
      ).candidates
        .map((c) => c.id)
        .sort();
    expect(await columnType(old)).toBe("halfvec(384)");
    const documentsApart = async (generation: number) => {
      const { rows } = await search.pool.query<{ apart: string | null }>(
        "select to_regclass($1)::text as apart",
        [`cairn_search.vectors_g${generation}_documents`],
      );
      return rows[0]?.apart !== null;
    };
    expect(await documentsApart(old)).toBe(true);
    // As the versions before left it: embeddings in single precision, its graph over them,
    // documents and text hashes in its rows, and neither in the generation's meta.
    await search.pool.query(`drop index cairn_search.vectors_g${old}_hnsw`);
    await search.pool.query(`alter table ${table} alter column embedding type vector(384)`);
    await search.pool.query(
      `create index vectors_g${old}_hnsw on ${table} using hnsw (embedding vector_cosine_ops)`,
    );
    await search.pool.query(`alter table ${table} add column document jsonb, add column text_hash text`);
    await search.pool.query(
      `update ${table} t set document = d.document, text_hash = d.text_hash
         from ${table}_documents d where d.memory_id = t.memory_id`,
    );
    await search.pool.query(
      `alter table ${table} alter column document set not null, alter column text_hash set not null`,
    );
    await search.pool.query(`drop table ${table}_documents`);
    await search.pool.query(
      `update cairn_projections.generations
          set meta = (meta - 'embedding' - 'documents') || '{"version": "audience-partitions-v1"}'
        where projection = 'search.vector' and generation = $1`,
      [old],
    );
    // It answers once the service has read the generation again (it keeps it half a second),
    // and takes the writes that follow.
    await sleep(600);
    expect(await foundByVectors()).toEqual([...ids].sort());
    ids.push((await search.log.record({ content: "precision note written later about lichens" })).id);
    await search.settle();
    expect(await foundByVectors()).toEqual([...ids].sort());

    await search.restartService();
    await expect.poll(async () => (await inspect.generations()).vector, { timeout: 20_000 }).not.toBe(old);
    const fresh = (await inspect.generations()).vector as number;
    expect(await columnType(fresh)).toBe("halfvec(384)");
    expect(await documentsApart(fresh)).toBe(true);
    expect(await foundByVectors()).toEqual([...ids].sort());
    await expectCurrentWithLog(search, inspect, ids);
  });

  test("a rebuilt vector generation has an HNSW graph on every partition, and a vector query finds what it holds", async ({
    search,
    inspect,
  }) => {
    const ids: string[] = [];
    for (let i = 0; i < 40; i += 1)
      ids.push((await search.log.record({ content: `graph memory ${i} about mosses` })).id);
    await search.settle();
    const before = await inspect.generations();
    await rebuild(inspect, "vector", { dropDelayMs: 0 });
    const generation = (await inspect.generations()).vector;
    expect(generation).not.toBe(before.vector);
    const table = `vectors_g${generation}`;
    // The table's index is valid (every partition's graph is built and attached) ...
    const { rows: tableIndex } = await search.pool.query(
      `select i.indisvalid as valid, am.amname as method
         from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
        where i.indrelid = $1::regclass and am.amname = 'hnsw'`,
      [`cairn_search.${table}`],
    );
    expect(tableIndex).toEqual([{ valid: true, method: "hnsw" }]);
    const { rows: parts } = await search.pool.query(
      `select count(*)::int as n from pg_inherits h
         join pg_index i on i.indexrelid = h.inhrelid
         join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
        where h.inhparent = $1::regclass and am.amname = 'hnsw' and i.indisvalid`,
      [`cairn_search.${table}_hnsw`],
    );
    expect(parts).toEqual([{ n: vectorPartitions }]);
    // ... and a vector query after the rebuild finds what it held.
    const reply = await search.candidates({
      principal: alice,
      query: "mosses",
      mode: "vector",
      candidateK: 50,
    });
    expect(reply.candidates.map((c) => c.id).sort()).toEqual([...ids].sort());
  });

  test("changing the embedding model is a rebuild of the vector projection", async ({ search }) => {
    const { id } = await search.log.record({ content: "Vectors of a new model." });
    await search.settle();

    // The operator rebuilds with the new model's settings ...
    const newModel = await inspectReadModels(search.env, createLocalEmbedder({ dimensions: 128 }));
    try {
      await rebuildFromHost(projectionHostOf(newModel.models), "search.vector", { dropDelayMs: 0 });
      expect((await newModel.embedding(id))?.length).toBe(128);
    } finally {
      await newModel.close();
    }
    // ... the running service, still on the old model, says so instead of mixing vector spaces ...
    const hybrid = await search.candidates({ principal: alice, query: "new model", mode: "hybrid" });
    expect(hybrid.unavailable).toEqual(["vector"]);
    expect(hybrid.candidates.map((c) => c.id)).toEqual([id]);
    await expect(
      search.candidates({ principal: alice, query: "new model", mode: "vector" }),
    ).rejects.toMatchObject({
      code: "unavailable",
    });
    // ... until it runs with the new settings.
    await search.restartService({ CAIRN_EMBEDDING_DIMENSIONS: "128" });
    const next = await search.log.record({ content: "Written with the new model." });
    await search.settle();
    const reply = await search.candidates({ principal: alice, query: "new model", mode: "vector" });
    expect(reply.embeddingModel).toBe("local:hash-v1:128");
    expect(reply.candidates.map((c) => c.id).sort()).toEqual([id, next.id].sort());
  });
});
