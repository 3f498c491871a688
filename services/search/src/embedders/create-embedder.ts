import type pg from "pg";
import type { Embedder } from "./embedder.ts";
import { withEmbedderTelemetry } from "./embedder-telemetry.ts";
import { withEmbeddingCache } from "./embedding-cache.ts";
import { createLocalEmbedder } from "./local-embedder.ts";
import { createOpenAiEmbedder } from "./openai-embedder.ts";

export type EmbedderConfig =
  | { kind: "local"; dimensions: number }
  | {
      kind: "openai";
      baseUrl: string;
      model: string;
      apiKey?: string | undefined;
      dimensions?: number | undefined;
      batchSize?: number;
      maxRetries?: number;
      timeoutMs?: number;
    };

/**
 * The embedders the configuration names: one for documents and one for query texts (same
 * model). A remote model's document embeddings go through the persistent cache; queries do
 * not, so the cache holds only what the read model holds. Both count their calls to the
 * model (`cairn_embedding_requests_total{use}`).
 */
export function createEmbedders(
  config: EmbedderConfig,
  pool: pg.Pool,
): { documents: Embedder; queries: Embedder } {
  if (config.kind === "local") {
    const local = createLocalEmbedder({ dimensions: config.dimensions });
    return {
      documents: withEmbedderTelemetry(local, "documents"),
      queries: withEmbedderTelemetry(local, "queries"),
    };
  }
  const remote = createOpenAiEmbedder(config);
  return {
    documents: withEmbeddingCache(withEmbedderTelemetry(remote, "documents"), { pool }),
    queries: withEmbedderTelemetry(remote, "queries"),
  };
}
