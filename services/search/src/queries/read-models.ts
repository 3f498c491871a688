// What the query handlers read: both read models, the embedder for query texts, and the
// checkpoints read-your-writes waits on.
import type { RetrieverName } from "@cairn/contracts";
import { type PositionSource, type ProjectionRuntime, waitForPosition } from "@cairn/projection-runtime";
import type { Logger } from "@cairn/telemetry";
import type { Embedder } from "../embedders/embedder.ts";
import { embeddingCacheMetrics } from "../embedders/embedder-telemetry.ts";
import type { LexicalStore } from "../projections/lexical/lexical-store.ts";
import type { VectorProjection } from "../projections/vector/vector-projection.ts";
import type { VectorRows } from "../projections/vector/vector-store.ts";
import { readModelError } from "./store-errors.ts";

export type ReadModels = {
  lexical: LexicalStore;
  vector: VectorProjection;
  vectorRows: VectorRows;
  /** Embeds query texts (same model as the vector projection, without the persistent cache). */
  queryEmbedder: Embedder;
  /** Wait for `afterPosition` when the request does not say how long. */
  defaultWaitMs: number;
  /** Matches the lexical stage scores exactly (RediSearch's own order only chooses them). */
  lexicalPool: number;
  /** Above this share of a tenant's memories a term is left out of the lexical match. */
  commonTermShare: number;
  now: () => number;
  logger: Logger;
  /** The projections' checkpoints, and progress of those this process runs. */
  runtime: ProjectionRuntime;
};

/** A read model's checkpoint, with a store that does not answer reported as `unavailable`. */
export function positionSource(models: ReadModels, name: RetrieverName): PositionSource {
  const source = models.runtime.positionSource(`search.${name}`);
  return {
    ...source,
    name,
    async position() {
      try {
        return await source.position();
      } catch (error) {
        throw readModelError(name, error);
      }
    },
  };
}

/**
 * Read-your-writes for a read of the lexical read model: waits until it has applied the
 * request's `afterPosition` (when it gives one) and answers the position it had reached.
 */
export async function waitForLexical(
  models: ReadModels,
  request: { afterPosition?: number | undefined; waitTimeoutMs?: number | undefined },
): Promise<number> {
  const reached = await waitForPosition(
    [positionSource(models, "lexical")],
    request.afterPosition,
    request.waitTimeoutMs ?? models.defaultWaitMs,
  );
  return reached.lexical ?? 0;
}

/** A small in-memory cache in front of the query embedder: agents repeat queries. */
export function withQueryCache(embedder: Embedder, entries = 1000): Embedder {
  const cache = new Map<string, number[]>();
  embeddingCacheMetrics.start(embedder.model, ["query"]);
  return {
    model: embedder.model,
    fusionWeight: embedder.fusionWeight,
    closeSimilarity: embedder.closeSimilarity,
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
