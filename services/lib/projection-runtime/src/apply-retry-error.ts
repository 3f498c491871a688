/** An event keeps failing to apply while its store is up: try again in `retryInMs`. */
export class ApplyRetryError extends Error {
  override readonly name = "ApplyRetryError";
  readonly code = "apply_retry" as const;
  readonly retryInMs: number;
  readonly position: number;
  readonly attempts: number;
  constructor(
    message: string,
    options: { retryInMs: number; position: number; attempts: number; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryInMs = options.retryInMs;
    this.position = options.position;
    this.attempts = options.attempts;
  }
}

export function isApplyRetryError(error: unknown): error is ApplyRetryError {
  return error instanceof ApplyRetryError;
}
