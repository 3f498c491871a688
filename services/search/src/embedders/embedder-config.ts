import type { SearchEnv } from "../env.ts";
import type { EmbedderConfig } from "./create-embedder.ts";

/** The embedder the environment configures (shared by the service and `pnpm cairn rebuild`). */
export function embedderConfigFromEnv(env: SearchEnv): EmbedderConfig {
  if (env.CAIRN_EMBEDDER === "local")
    return { kind: "local", dimensions: env.CAIRN_EMBEDDING_DIMENSIONS ?? 384 };
  return {
    kind: "openai",
    baseUrl: env.CAIRN_EMBEDDING_URL,
    model: env.CAIRN_EMBEDDING_MODEL,
    apiKey: env.CAIRN_EMBEDDING_API_KEY,
    dimensions: env.CAIRN_EMBEDDING_DIMENSIONS,
    batchSize: env.CAIRN_EMBEDDING_BATCH_SIZE,
    maxRetries: env.CAIRN_EMBEDDING_MAX_RETRIES,
    timeoutMs: env.CAIRN_EMBEDDING_TIMEOUT_MS,
  };
}
