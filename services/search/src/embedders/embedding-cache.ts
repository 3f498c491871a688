// A cache of embeddings keyed by model and the SHA-256 of the text: in memory (bounded, least
// recently used first out) and in Postgres (`cairn_search.embedding_cache`), so a rebuild or
// a restart does not pay a remote model again for texts it has seen.
import { createHash } from "node:crypto";
import type pg from "pg";
import pgvector from "pgvector";
import type { Embedder } from "./embedder.ts";

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

  return {
    model: embedder.model,
    dimensions: () => embedder.dimensions(),
    async embed(texts) {
      const hashes = texts.map(textHash);
      const found = new Map<string, number[]>();
      for (const h of hashes) {
        const v = memory.get(h);
        if (v) {
          found.set(h, v);
          remember(h, v);
        }
      }
      const missing = [...new Set(hashes.filter((h) => !found.has(h)))];
      if (missing.length > 0) {
        const { rows } = await options.pool.query<{ text_hash: string; embedding: string }>(
          "select text_hash, embedding::text from cairn_search.embedding_cache where model = $1 and text_hash = any($2)",
          [embedder.model, missing],
        );
        for (const row of rows) {
          const v = pgvector.fromSql(row.embedding) as number[];
          found.set(row.text_hash, v);
          remember(row.text_hash, v);
        }
      }
      const toEmbed: { hash: string; text: string }[] = [];
      const queued = new Set<string>();
      texts.forEach((text, i) => {
        const h = hashes[i] as string;
        if (!found.has(h) && !queued.has(h)) {
          queued.add(h);
          toEmbed.push({ hash: h, text });
        }
      });
      if (toEmbed.length > 0) {
        const vectors = await embedder.embed(toEmbed.map((t) => t.text));
        toEmbed.forEach((t, i) => {
          found.set(t.hash, vectors[i] as number[]);
          remember(t.hash, vectors[i] as number[]);
        });
        await options.pool.query(
          `insert into cairn_search.embedding_cache (model, text_hash, embedding)
           select $1, h, e::vector from unnest($2::text[], $3::text[]) as t(h, e)
           on conflict do nothing`,
          [embedder.model, toEmbed.map((t) => t.hash), vectors.map((v) => pgvector.toSql(v))],
        );
      }
      return hashes.map((h) => found.get(h) as number[]);
    },
  };
}
