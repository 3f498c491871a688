/**
 * An event that cannot follow the document it belongs to: a second creation, a change to a
 * stream never created, or a version gap (an event was lost upstream). Replaying the same
 * log gives the same error, so a projection dead-letters the event instead of retrying it.
 */
export class MemoryFoldError extends Error {
  override readonly name = "MemoryFoldError";
  readonly code = "cannot_apply" as const;
}

export function isMemoryFoldError(error: unknown): error is MemoryFoldError {
  return error instanceof MemoryFoldError;
}
