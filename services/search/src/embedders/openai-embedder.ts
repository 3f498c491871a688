// An embedder for any OpenAI-compatible `POST <baseUrl>/embeddings` endpoint: OpenAI, Ollama
// (`http://localhost:11434/v1`), vLLM, Hugging Face TEI, DashScope's compatible mode. Inputs
// go in batches; 408, 409, 429, 5xx and network errors are retried with exponential backoff
// and jitter (honouring `Retry-After`); the dimension is learnt from the first reply unless
// configured.
import { setTimeout as sleep } from "node:timers/promises";
import { type Embedder, EmbedderError } from "./embedder.ts";

export type OpenAiEmbedderOptions = {
  /** The API base, with its version path: `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** Ask for this dimension (models that support shortening, e.g. text-embedding-3-*). */
  dimensions?: number | undefined;
  batchSize?: number;
  maxRetries?: number;
  /** First backoff; doubles per attempt up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  timeoutMs?: number;
  /** Longer inputs are cut (most endpoints refuse inputs over their context). */
  maxInputChars?: number;
  /** The vector part's weight in hybrid relevance (default `remoteFusionWeight`). */
  fusionWeight?: number | undefined;
  /** Similarity taken as relevant whatever the words (default `remoteCloseSimilarity`). */
  closeSimilarity?: number | undefined;
  fetch?: typeof fetch;
};

/** A trained embedding model shares hybrid relevance equally with BM25 unless told otherwise. */
export const remoteFusionWeight = 0.5;

/** Trained models put unrelated texts near 0.1-0.2 and paraphrases above 0.5. */
export const remoteCloseSimilarity = 0.5;

type EmbeddingsReply = { data?: { index?: number; embedding?: unknown }[] };

function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
  const batchSize = options.batchSize ?? 64;
  const maxRetries = options.maxRetries ?? 5;
  const initialBackoffMs = options.initialBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 20_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxInputChars = options.maxInputChars ?? 24_000;
  const doFetch = options.fetch ?? fetch;
  let learnt: number | undefined = options.dimensions;

  async function requestOnce(input: string[]): Promise<number[][]> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const body: Record<string, unknown> = { model: options.model, input, encoding_format: "float" };
    if (options.dimensions !== undefined) body.dimensions = options.dimensions;
    let response: Response;
    try {
      response = await doFetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (cause) {
      throw new EmbedderError(
        "request_failed",
        `embedding request to ${url} failed: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
    if (!response.ok) {
      const text = await response.text().catch(() => "");
      const error = new EmbedderError(
        "request_failed",
        `embedding endpoint ${url} answered ${response.status}: ${text.slice(0, 300)}`,
        { status: response.status },
      );
      (error as EmbedderError & { retryAfterMs?: number }).retryAfterMs = retryAfterMs(
        response.headers.get("retry-after"),
      );
      throw error;
    }
    let reply: EmbeddingsReply;
    try {
      reply = (await response.json()) as EmbeddingsReply;
    } catch (cause) {
      throw new EmbedderError("bad_reply", `embedding endpoint ${url} answered with invalid JSON`, { cause });
    }
    const data = reply.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new EmbedderError(
        "bad_reply",
        `expected ${input.length} embeddings from ${url}, got ${data?.length ?? 0}`,
      );
    }
    const out: number[][] = new Array(input.length);
    data.forEach((item, position) => {
      const index = typeof item.index === "number" ? item.index : position;
      const vector = item.embedding;
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every((v) => typeof v === "number")) {
        throw new EmbedderError("bad_reply", `embedding ${index} from ${url} is not a list of numbers`);
      }
      out[index] = vector as number[];
    });
    const dims = out[0]?.length ?? 0;
    if (out.some((v) => v === undefined || v.length !== dims)) {
      throw new EmbedderError("bad_reply", `embeddings from ${url} have differing dimensions`);
    }
    if (learnt === undefined) learnt = dims;
    else if (learnt !== dims) {
      throw new EmbedderError(
        "bad_reply",
        `${options.model} answered ${dims} dimensions, expected ${learnt}`,
      );
    }
    return out;
  }

  async function requestWithRetries(input: string[]): Promise<number[][]> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await requestOnce(input);
      } catch (error) {
        const e = error as EmbedderError & { retryAfterMs?: number };
        const canRetry = e.code === "request_failed" && (e.status === undefined || retryable(e.status));
        if (!canRetry || attempt >= maxRetries) {
          if (!canRetry) throw e;
          throw new EmbedderError("retries_exhausted", `${e.message} (after ${attempt + 1} attempts)`, {
            ...(e.status === undefined ? {} : { status: e.status }),
            cause: e,
          });
        }
        const backoff = Math.min(maxBackoffMs, initialBackoffMs * 2 ** attempt);
        const jittered = backoff / 2 + Math.random() * (backoff / 2);
        await sleep(Math.min(maxBackoffMs, Math.max(jittered, e.retryAfterMs ?? 0)));
      }
    }
  }

  const model = `openai:${options.model}${options.dimensions === undefined ? "" : `:${options.dimensions}`}`;
  return {
    model,
    fusionWeight: options.fusionWeight ?? remoteFusionWeight,
    closeSimilarity: options.closeSimilarity ?? remoteCloseSimilarity,
    async dimensions() {
      if (learnt === undefined) await requestWithRetries(["dimension probe"]);
      return learnt as number;
    },
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts
          .slice(i, i + batchSize)
          .map((t) => (t.length > maxInputChars ? t.slice(0, maxInputChars) : t));
        // Some endpoints refuse an empty input; an empty text has no meaning to embed anyway.
        out.push(...(await requestWithRetries(batch.map((t) => (t.trim() === "" ? " " : t)))));
      }
      return out;
    },
  };
}
