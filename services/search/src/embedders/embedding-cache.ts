// A cache of embeddings keyed by model and the SHA-256 of the text: in memory (bounded, least
// recently used first out) and in Postgres (`cairn_search.embedding_cache`), so a rebuild or
// a restart does not pay a remote model again for texts it has seen. Each persisted entry
// names the memory it was made for: purging that memory forgets it (an embedding is derived
// from the text and must not outlive it). Texts without an owner (queries) are not persisted.
import { createHash } from "node:crypto";
import type pg from "pg";
import pgvector from "pgvector";
import type { Embedder } from "./embedder.ts";
import { embeddingCacheMetrics } from "./embedder-telemetry.ts";

export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export type EmbeddingCacheOptions = { pool: pg.Pool; memoryEntries?: number };

export function withEmbeddingCache(embedder: Embedder, options: EmbeddingCacheOptions): Embedder {
  const capacity = options.memoryEntries ?? 5000;
  const memory = new Map<string, number[]>();
  const remember = (hash: string, vector: number[]) => {
    memory.delete(hash);
    memory.set(hash, vector);
    if (memory.size > capacity) memory.delete(memory.keys().next().value as string);
  };
  embeddingCacheMetrics.start(embedder.model, ["memory", "postgres"]);

  return {
    model: embedder.model,
    fusionWeight: embedder.fusionWeight,
    closeSimilarity: embedder.closeSimilarity,
    dimensions: () => embedder.dimensions(),
    async embed(texts, embedOptions = {}) {
      const owners = embedOptions.owners;
      const hashes = texts.map(textHash);
      const found = new Map<string, number[]>();
      for (const h of hashes) {
        const v = memory.get(h);
        if (v) {
          found.set(h, v);
          remember(h, v);
        }
      }
      embeddingCacheMetrics.hits(embedder.model, "memory", hashes.filter((h) => found.has(h)).length);
      const missing = [...new Set(hashes.filter((h) => !found.has(h)))];
      embeddingCacheMetrics.misses(embedder.model, "memory", missing.length);
      if (missing.length > 0) {
        const { rows } = await options.pool.query<{ text_hash: string; embedding: string }>(
          `select distinct on (text_hash) text_hash, embedding::text from cairn_search.embedding_cache
            where model = $1 and text_hash = any($2)`,
          [embedder.model, missing],
        );
        for (const row of rows) {
          const v = pgvector.fromSql(row.embedding) as number[];
          found.set(row.text_hash, v);
          remember(row.text_hash, v);
        }
        embeddingCacheMetrics.hits(embedder.model, "postgres", rows.length);
      }
      const toEmbed: { hash: string; text: string; owner: string | undefined }[] = [];
      const queued = new Set<string>();
      texts.forEach((text, i) => {
        const h = hashes[i] as string;
        if (!found.has(h) && !queued.has(h)) {
          queued.add(h);
          toEmbed.push({ hash: h, text, owner: owners?.[i] });
        }
      });
      embeddingCacheMetrics.misses(embedder.model, "postgres", toEmbed.length);
      if (toEmbed.length > 0) {
        const vectors = await embedder.embed(toEmbed.map((t) => t.text));
        const persisted: { hash: string; owner: string; vector: number[] }[] = [];
        toEmbed.forEach((t, i) => {
          const vector = vectors[i] as number[];
          found.set(t.hash, vector);
          if (t.owner !== undefined) {
            remember(t.hash, vector);
            persisted.push({ hash: t.hash, owner: t.owner, vector });
          }
        });
        if (persisted.length > 0) {
          await options.pool.query(
            `insert into cairn_search.embedding_cache (model, text_hash, memory_id, embedding)
             select $1, h, m, e::vector from unnest($2::text[], $3::uuid[], $4::text[]) as t(h, m, e)
             on conflict do nothing`,
            [
              embedder.model,
              persisted.map((p) => p.hash),
              persisted.map((p) => p.owner),
              persisted.map((p) => pgvector.toSql(p.vector)),
            ],
          );
        }
      }
      return hashes.map((h) => found.get(h) as number[]);
    },
    async forget(memoryIds) {
      if (memoryIds.length === 0) return;
      const { rows } = await options.pool.query<{ text_hash: string }>(
        "delete from cairn_search.embedding_cache where memory_id = any($1::uuid[]) returning text_hash",
        [memoryIds],
      );
      // The in-memory copy goes too (another memory with the same text simply embeds again).
      for (const row of rows) memory.delete(row.text_hash);
    },
  };
}
