// Applies log events to one generation of a projection, for the live projector and for a
// rebuild alike. A batch goes in one atomic write with its checkpoint; when it fails for a
// reason that is not a dependency being away, the events are tried one at a time to find the
// one that fails, which is retried with a backoff that grows with its attempts and, after a
// bounded number of them with its store answering, set aside as a dead letter so that the
// events after it apply. Nothing is ever skipped without a dead letter saying why.
import type { SealRing, StoredEvent } from "@cairn/contracts";
import { isDependencyFailure } from "@cairn/service-runtime";
import type { Logger } from "@cairn/telemetry";
import { ApplyRetryError } from "./apply-retry-error.ts";
import type { DeadLetter } from "./dead-letter.ts";
import type { DeadLetterStore } from "./dead-letter-store.ts";
import { prepareBatch } from "./prepare-batch.ts";
import type { ApplyOutcome, Projection, ProjectionWriter } from "./projection.ts";
import { backoffMs, defaultRetryPolicy, type RetryPolicy } from "./retry-policy.ts";

export type ApplyTarget = { generation: number; writer: ProjectionWriter; checkpoint: number };

export type BatchOutcome = { outcome: ApplyOutcome; checkpoint: number };

export type BatchApplierOptions = {
  projection: Projection;
  sealRing?: SealRing | undefined;
  deadLetters: DeadLetterStore;
  retry?: RetryPolicy | undefined;
  logger?: Logger | undefined;
  /** Told about every dead letter recorded (metrics). */
  onDeadLetters?: ((count: number) => void) | undefined;
  now?: () => number;
};

type Failure = { attempts: number; notBefore: number; error: string };

export type BatchApplier = {
  /**
   * Applies events that follow `target.checkpoint` (read from it, in log order). Answers the
   * outcome and the checkpoint reached. Throws a dependency failure as it came, or an
   * ApplyRetryError while an event is being retried.
   */
  apply(target: ApplyTarget, stored: readonly StoredEvent[]): Promise<BatchOutcome>;
  /**
   * One attempt at the whole batch, with no search for an event that fails and no retry: what a
   * pipelined rebuild sends ahead. Throws what the attempt threw; the caller goes on with
   * `apply` from the checkpoint the store holds.
   */
  applyOnce(target: ApplyTarget, stored: readonly StoredEvent[]): Promise<BatchOutcome>;
};

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createBatchApplier(options: BatchApplierOptions): BatchApplier {
  const { projection, deadLetters } = options;
  const policy = options.retry ?? defaultRetryPolicy;
  const now = options.now ?? Date.now;
  const failures = new Map<string, Failure>();
  const failureKey = (t: ApplyTarget, position: number) =>
    `${t.writer.kind === "live" ? "live" : t.writer.token}:${t.generation}:${position}`;

  async function record(generation: number, letters: DeadLetter[]): Promise<void> {
    if (letters.length === 0) return;
    await deadLetters.record(projection.name, generation, letters);
    options.onDeadLetters?.(letters.length);
    for (const letter of letters) {
      options.logger?.error(
        {
          projection: projection.name,
          position: letter.event?.position,
          type: letter.event?.type,
          reason: letter.reason,
          attempts: letter.attempts,
          error: letter.error,
        },
        "event dead-lettered",
      );
    }
  }

  async function once(t: ApplyTarget, stored: readonly StoredEvent[]): Promise<BatchOutcome> {
    const last = (stored.at(-1) as StoredEvent).position;
    if (last <= t.checkpoint) throw new Error("a batch must end after the checkpoint it follows");
    const { events, letters } = await prepareBatch(projection, stored, options.sealRing);
    const result = await projection.apply({
      generation: t.generation,
      writer: t.writer,
      expected: t.checkpoint,
      next: last,
      events,
    });
    // Only what was committed says what could not apply: a write that lost the race for the
    // checkpoint read a state that had moved on, and its refusals would be bogus.
    const reached = result.outcome === "ok" ? last : (result.checkpoint ?? t.checkpoint);
    const refused = result.refused.map((r) => ({ ...r, attempts: 1 }));
    await record(t.generation, [...letters.filter((l) => (l.event?.position ?? 0) <= reached), ...refused]);
    for (const e of stored) if (e.position <= reached) failures.delete(failureKey(t, e.position));
    return { outcome: result.outcome, checkpoint: reached };
  }

  /** One more failed attempt of a single event: retry later, or set it aside. */
  async function failed(t: ApplyTarget, event: StoredEvent, error: unknown): Promise<BatchOutcome> {
    const key = failureKey(t, event.position);
    const failure = failures.get(key) ?? { attempts: 0, notBefore: 0, error: "" };
    failure.attempts += 1;
    failure.error = messageOf(error);
    const delay = backoffMs(policy, failure.attempts);
    failure.notBefore = now() + delay;
    failures.set(key, failure);
    if (failure.attempts >= policy.maxAttempts) {
      let storeUp = true;
      try {
        await projection.probe();
      } catch {
        storeUp = false;
      }
      if (storeUp) {
        // Move the checkpoint past it with no writes, then say so.
        const moved = await projection.apply({
          generation: t.generation,
          writer: t.writer,
          expected: t.checkpoint,
          next: event.position,
          events: [],
        });
        if (moved.outcome !== "ok") return { outcome: moved.outcome, checkpoint: t.checkpoint };
        await record(t.generation, [
          { event, reason: "apply_failed", error: failure.error, attempts: failure.attempts },
        ]);
        failures.delete(key);
        return { outcome: "ok", checkpoint: event.position };
      }
    }
    options.logger?.warn(
      {
        projection: projection.name,
        position: event.position,
        type: event.type,
        attempts: failure.attempts,
        retryInMs: delay,
        err: failure.error,
      },
      "event failed to apply; will retry",
    );
    throw new ApplyRetryError(
      `${projection.name} could not apply the event at position ${event.position} (${failure.attempts} attempts): ${failure.error}`,
      { retryInMs: delay, position: event.position, attempts: failure.attempts, cause: error },
    );
  }

  async function single(t: ApplyTarget, event: StoredEvent): Promise<BatchOutcome> {
    const failure = failures.get(failureKey(t, event.position));
    if (failure && now() < failure.notBefore) {
      throw new ApplyRetryError(
        `${projection.name} waits before it tries the event at position ${event.position} again: ${failure.error}`,
        { retryInMs: failure.notBefore - now(), position: event.position, attempts: failure.attempts },
      );
    }
    try {
      return await once(t, [event]);
    } catch (error) {
      if (isDependencyFailure(error)) throw error;
      return failed(t, event, error);
    }
  }

  return {
    applyOnce: once,
    async apply(t, stored) {
      const first = stored[0];
      if (!first) return { outcome: "ok", checkpoint: t.checkpoint };
      if (!failures.has(failureKey(t, first.position))) {
        try {
          return await once(t, stored);
        } catch (error) {
          if (isDependencyFailure(error)) throw error;
          if (stored.length === 1) return failed(t, first, error);
        }
      }
      // Find the event that fails: one at a time from the start of the batch.
      let at = t;
      for (const event of stored) {
        const result = await single(at, event);
        if (result.outcome !== "ok") return result;
        at = { ...at, checkpoint: result.checkpoint };
      }
      return { outcome: "ok", checkpoint: at.checkpoint };
    },
  };
}
