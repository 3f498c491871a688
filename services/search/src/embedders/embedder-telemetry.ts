// The embedding model's calls in spans and metrics: `embed` spans (model, use, text count)
// and `cairn_embedding_requests_total{model, use, outcome}`, `cairn_embedding_texts_total`,
// `cairn_embedding_duration_seconds`. Wraps the model itself, under any cache, so a request
// counted here is one the model really served; the cache counts its own hits.
import { createSecondsHistogram, getMeter, getTracer, startSpan } from "@cairn/telemetry";
import type { Embedder } from "./embedder.ts";

/** What the vectors are for: documents being projected, or query texts. */
export type EmbeddingUse = "documents" | "queries";

const tracer = getTracer("@cairn/search");
const meter = getMeter("@cairn/search");
const requests = meter.createCounter("cairn_embedding_requests", {
  description: "Calls to the embedding model, by model, use (documents, queries) and outcome",
});
const texts = meter.createCounter("cairn_embedding_texts", {
  description: "Texts embedded by the model (not served from the cache), by model and use",
});
const duration = createSecondsHistogram(
  meter,
  "cairn_embedding_duration_seconds",
  "Embedding call latency, by model, use and outcome",
);
const cacheHits = meter.createCounter("cairn_embedding_cache_hits", {
  description:
    "Texts whose embedding came from a cache, by model and tier (memory and postgres for documents, query)",
});
const cacheMisses = meter.createCounter("cairn_embedding_cache_misses", {
  description:
    "Texts a cache did not hold, by model and tier (the postgres and query misses go to the model)",
});

export type CacheTier = "memory" | "postgres" | "query";

/** Counts cache lookups (called by the document embedding cache and the query cache). */
export const embeddingCacheMetrics = {
  /** Shows a cache's counters from zero. */
  start(model: string, tiers: readonly CacheTier[]): void {
    for (const tier of tiers) {
      cacheHits.add(0, { model, tier });
      cacheMisses.add(0, { model, tier });
    }
  },
  hits(model: string, tier: CacheTier, count: number): void {
    if (count > 0) cacheHits.add(count, { model, tier });
  },
  /** Texts the cache of `tier` did not hold (the last tier's misses go to the model). */
  misses(model: string, tier: CacheTier, count: number): void {
    if (count > 0) cacheMisses.add(count, { model, tier });
  },
};

export function withEmbedderTelemetry(embedder: Embedder, use: EmbeddingUse): Embedder {
  const labels = { model: embedder.model, use };
  requests.add(0, { ...labels, outcome: "ok" });
  texts.add(0, labels);
  return {
    model: embedder.model,
    fusionWeight: embedder.fusionWeight,
    closeSimilarity: embedder.closeSimilarity,
    dimensions: () => embedder.dimensions(),
    embed(input, options) {
      const started = performance.now();
      return startSpan(
        tracer,
        "embed",
        async () => {
          let outcome = "error";
          try {
            const vectors = await embedder.embed(input, options);
            outcome = "ok";
            texts.add(input.length, labels);
            return vectors;
          } finally {
            requests.add(1, { ...labels, outcome });
            duration.record((performance.now() - started) / 1000, { ...labels, outcome });
          }
        },
        {
          attributes: {
            "cairn.embedding.model": embedder.model,
            "cairn.embedding.use": use,
            "cairn.embedding.texts": input.length,
          },
        },
      );
    },
    ...(embedder.forget
      ? { forget: (ids: readonly string[]) => embedder.forget?.(ids) ?? Promise.resolve() }
      : {}),
  };
}
