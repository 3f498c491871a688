// What the query handlers read: both read models, the embedder for query texts, and the
// checkpoints read-your-writes waits on.
import type { ProjectionName } from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import type { Embedder } from "../embedders/embedder.ts";
import { embeddingCacheMetrics } from "../embedders/embedder-telemetry.ts";
import type { LexicalStore } from "../projections/lexical/lexical-store.ts";
import type { VectorProjection } from "../projections/vector/vector-projection.ts";
import type { VectorStore } from "../projections/vector/vector-store.ts";
import { readModelError } from "./store-errors.ts";
import type { PositionSource } from "./wait-for-position.ts";

export type ReadModels = {
  lexical: LexicalStore;
  vector: VectorProjection;
  vectorStore: VectorStore;
  /** Embeds query texts (same model as the vector projection, without the persistent cache). */
  queryEmbedder: Embedder;
  /** Wait for `afterPosition` when the request does not say how long. */
  defaultWaitMs: number;
  now: () => number;
  logger: Logger;
  /** Progress of the projections this process runs, to wake read-your-writes waits at once. */
  advances?: Partial<Record<ProjectionName, (listener: () => void) => () => void>>;
};

export function positionSource(models: ReadModels, name: ProjectionName): PositionSource {
  const onAdvance = models.advances?.[name];
  if (name === "lexical") {
    return {
      name,
      ...(onAdvance ? { onAdvance } : {}),
      async position() {
        try {
          const g = await models.lexical.activeGeneration();
          return g === null ? 0 : await models.lexical.checkpoint(g);
        } catch (error) {
          throw readModelError("lexical", error);
        }
      },
    };
  }
  return {
    name,
    ...(onAdvance ? { onAdvance } : {}),
    async position() {
      try {
        return (await models.vectorStore.activeGeneration())?.checkpoint ?? 0;
      } catch (error) {
        throw readModelError("vector", error);
      }
    },
  };
}

/** A small in-memory cache in front of the query embedder: agents repeat queries. */
export function withQueryCache(embedder: Embedder, entries = 1000): Embedder {
  const cache = new Map<string, number[]>();
  embeddingCacheMetrics.start(embedder.model, ["query"]);
  return {
    model: embedder.model,
    dimensions: () => embedder.dimensions(),
    async embed(texts) {
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      embeddingCacheMetrics.hits(embedder.model, "query", texts.filter((t) => cache.has(t)).length);
      embeddingCacheMetrics.misses(embedder.model, "query", missing.length);
      if (missing.length > 0) {
        const vectors = await embedder.embed(missing);
        missing.forEach((t, i) => {
          cache.set(t, vectors[i] as number[]);
          if (cache.size > entries) cache.delete(cache.keys().next().value as string);
        });
      }
      return texts.map((t) => cache.get(t) as number[]);
    },
  };
}
