/**
 * How long to wait before the n-th retry (n from 1) of an event that failed to apply, and
 * after how many failed attempts, with its store up, it is set aside as a dead letter.
 */
export type RetryPolicy = { baseMs: number; maxMs: number; maxAttempts: number };

export const defaultRetryPolicy: RetryPolicy = { baseMs: 200, maxMs: 5000, maxAttempts: 6 };

/** Exponential backoff: base, 2·base, 4·base, … capped at max. */
export function backoffMs(policy: Pick<RetryPolicy, "baseMs" | "maxMs">, attempt: number): number {
  return Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
}
