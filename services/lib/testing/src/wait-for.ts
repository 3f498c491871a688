import { setTimeout as sleep } from "node:timers/promises";
import { WaitForTimeoutError } from "./errors.ts";

export interface WaitForOptions {
  /** Give up after this long (default 5000 ms). */
  timeoutMs?: number;
  /** Pause between attempts (default 50 ms). */
  intervalMs?: number;
  /** What is being waited for, used in the timeout message ("projection to reach position 12"). */
  description?: string;
}

/**
 * Calls `fn` until it neither throws nor returns `false`, and resolves with what it returned.
 * So both styles work: a predicate (`() => rows.length > 0`) and an assertion block
 * (`() => { expect(x).toBe(1) }`). On timeout it rejects with a WaitForTimeoutError whose
 * `cause` is the last error thrown by `fn`, if any.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Exclude<T, false>> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let attempts = 0;
  let lastError: unknown;
  let lastWasFalse = false;
  for (;;) {
    attempts += 1;
    try {
      const value = await fn();
      if (value !== false) return value as Exclude<T, false>;
      lastWasFalse = true;
      lastError = undefined;
    } catch (error) {
      lastWasFalse = false;
      lastError = error;
    }
    if (Date.now() + intervalMs > deadline) break;
    await sleep(intervalMs);
  }
  const what = options.description ?? "condition";
  const last =
    lastError !== undefined
      ? `last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`
      : lastWasFalse
        ? "last result: false"
        : "";
  throw new WaitForTimeoutError(
    `Timed out after ${timeoutMs} ms (${attempts} attempts) waiting for ${what}${last ? `; ${last}` : ""}`,
    { timeoutMs, attempts, cause: lastError },
  );
}
