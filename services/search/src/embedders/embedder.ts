/**
 * Turns texts into vectors of one vector space. `model` names that space: vectors of two
 * models are never compared, and changing it means rebuilding the vector projection.
 */
export type Embedder = {
  readonly model: string;
  /**
   * How much a hybrid search trusts this embedder: the weight of the vector part in the fused
   * relevance (0..1; the lexical part has the rest). A tenant's setting overrides it.
   */
  readonly fusionWeight: number;
  /**
   * A cosine similarity at which a memory is taken as relevant whatever its words (a
   * paraphrase, a typo): below the relevance floor, such a memory is still returned.
   */
  readonly closeSimilarity: number;
  /** The vector dimension (a remote model's is learnt from its first reply). */
  dimensions(): Promise<number>;
  /**
   * One vector per text, in order. `owners` names the memory each text belongs to, so a
   * cache can forget a memory's embeddings when it is purged.
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<number[][]>;
  /** Forgets what was kept for these memories (a purge). Embedders that keep nothing omit it. */
  forget?(memoryIds: readonly string[]): Promise<void>;
};

/** `owners[i]`: the memory text i belongs to (undefined: nobody's, such as a query). */
export type EmbedOptions = { owners?: readonly (string | undefined)[] };

export const embedderErrorCodes = ["request_failed", "bad_reply", "retries_exhausted"] as const;
export type EmbedderErrorCode = (typeof embedderErrorCodes)[number];

/** An embedding request that failed; the projection treats it as transient and retries later. */
export class EmbedderError extends Error {
  override readonly name = "EmbedderError";
  readonly code: EmbedderErrorCode;
  readonly status: number | undefined;
  constructor(code: EmbedderErrorCode, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
  }
}

export function isEmbedderError(error: unknown): error is EmbedderError {
  return error instanceof EmbedderError;
}

/** Scales a vector to unit length (a zero vector stays zero). */
export function normalize(vector: number[]): number[] {
  let sum = 0;
  for (const v of vector) sum += v * v;
  const norm = Math.sqrt(sum);
  return norm === 0 ? vector : vector.map((v) => v / norm);
}
