// Moves a read model forward as events arrive. JetStream says that something happened; the
// log says what, in order. Before applying a delivered event the projector reads the log
// after its checkpoint, so an event it never saw (a read model that lost writes when Redis
// restarted, a delivery JetStream gave up on, a relay that skipped one) is applied first, in
// log order. Several events go in one atomic write when the log is ahead, and every write is
// a compare-and-set on the checkpoint, so duplicates and concurrent writers have no effect.
// A delivered event the log does not hold is dead-lettered: the log is the truth.

import { setTimeout as sleep } from "node:timers/promises";
import type { StoredEvent } from "@cairn/contracts";
import type { DeadLetter } from "./fold-events.ts";
import type { ProjectionTarget } from "./projection-target.ts";

/** The part of the event store a projection reads. */
export type EventLogReader = {
  readAll(options: { after: number; limit: number }): Promise<StoredEvent[]>;
  lastPosition(): Promise<number>;
  /** The events with these ids that are in the log (committed), whatever the readers' horizon. */
  findEvents(eventIds: readonly string[]): Promise<StoredEvent[]>;
};

export type HandleOutcome =
  | { kind: "applied"; position: number }
  | { kind: "duplicate"; position: number }
  | { kind: "dead_lettered"; position: number; deadLetter: DeadLetter };

/** A delivered event the log holds but cannot show yet (an older transaction is still open). */
export class LogNotReadableError extends Error {
  override readonly name = "LogNotReadableError";
  readonly code = "log_not_readable" as const;
}

export type LiveProjector = {
  readonly target: ProjectionTarget;
  /** Applies a delivered event, and first any earlier ones the read model lacks. */
  handle(event: StoredEvent, heartbeat?: () => void): Promise<HandleOutcome>;
  /**
   * Applies every event the log holds beyond the checkpoint (up to `through` when given);
   * returns the checkpoint reached.
   */
  catchUp(heartbeat?: () => void, options?: { through?: number }): Promise<number>;
  /** The last checkpoint this projector saw (0 before its first look). */
  lastKnownPosition(): number;
  /** Called whenever this projector moved the checkpoint. */
  onAdvance(listener: (position: number) => void): () => void;
  /** Forgets cached state (after a connection loss). */
  reset(): void;
};

export type LiveProjectorOptions = {
  target: ProjectionTarget;
  log: EventLogReader;
  /** Events per write when catching up (default 200). */
  batchSize?: number;
  /** Pause between attempts while a rebuild holds live writes (default 50 ms). */
  pausedRetryMs?: number;
  /** How long a delivered event may stay unreadable in the log before the delivery is retried later (default 2 s). */
  visibilityWaitMs?: number;
};

type State = { generation: number; checkpoint: number };

export function createLiveProjector(options: LiveProjectorOptions): LiveProjector {
  const { target, log } = options;
  const batchSize = options.batchSize ?? 200;
  const pausedRetryMs = options.pausedRetryMs ?? 50;
  const visibilityWaitMs = options.visibilityWaitMs ?? 2000;
  const listeners = new Set<(position: number) => void>();
  let cached: State | undefined;
  let known = 0;

  // One applier at a time in this process (the consumer and the catch-up); copies of the
  // service are kept apart by the compare-and-set on the checkpoint.
  let tail: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  }

  function advanced(position: number): void {
    known = Math.max(known, position);
    for (const listener of listeners) listener(position);
  }

  async function current(): Promise<State> {
    if (!cached) {
      const generation = await target.liveGeneration();
      cached = { generation, checkpoint: await target.checkpoint(generation) };
      known = Math.max(known, cached.checkpoint);
    }
    return cached;
  }

  /**
   * Applies events that follow `state.checkpoint` (they were read from it), moving it to the
   * last one. Null when the checkpoint had moved (or a rebuild holds writes): read again.
   */
  async function applyBatch(state: State, events: readonly StoredEvent[], heartbeat?: () => void) {
    const last = events.at(-1) as StoredEvent;
    if (last.position <= state.checkpoint)
      throw new Error("a batch must end after the checkpoint it follows");
    const result = await target.apply(
      state.generation,
      { kind: "live" },
      state.checkpoint,
      events,
      last.position,
    );
    heartbeat?.();
    if (result.outcome === "ok") {
      cached = { generation: state.generation, checkpoint: last.position };
      advanced(last.position);
      return result;
    }
    cached = undefined;
    if (result.outcome === "paused") await sleep(pausedRetryMs);
    return null;
  }

  const projector: LiveProjector = {
    target,
    handle(event, heartbeat) {
      return exclusive(async () => {
        const deadline = Date.now() + visibilityWaitMs;
        for (;;) {
          const state = await current();
          if (event.position <= state.checkpoint) {
            // The cache is never ahead of the truth: a duplicate for sure.
            return { kind: "duplicate", position: state.checkpoint };
          }
          const batch = await log.readAll({ after: state.checkpoint, limit: batchSize });
          if (batch.some((e) => e.position >= event.position)) {
            const result = await applyBatch(state, batch, heartbeat);
            if (!result) continue;
            const deadLetter = result.deadLetters.find((d) => d.event?.eventId === event.eventId);
            if (deadLetter) return { kind: "dead_lettered", position: event.position, deadLetter };
            return { kind: "applied", position: event.position };
          }
          if (batch.length > 0) {
            // Behind: what the log shows before this event goes first.
            await applyBatch(state, batch, heartbeat);
            continue;
          }
          // The log shows nothing after the checkpoint. Is the event in it at all?
          if ((await log.findEvents([event.eventId])).length === 0) {
            const deadLetter: DeadLetter = {
              event,
              reason: "not_in_log",
              error: `event ${event.eventId} (position ${event.position}) is not in the log, which is the truth`,
            };
            await target.recordDeadLetters(state.generation, [deadLetter]);
            return { kind: "dead_lettered", position: event.position, deadLetter };
          }
          // Committed, but an older transaction still holds the readers' horizon back.
          if (Date.now() > deadline) {
            throw new LogNotReadableError(
              `position ${event.position} is committed but not yet readable; an older transaction is still open`,
            );
          }
          await sleep(20);
        }
      });
    },
    catchUp(heartbeat, catchUpOptions = {}) {
      const through = catchUpOptions.through ?? Number.POSITIVE_INFINITY;
      return exclusive(async () => {
        for (;;) {
          const state = await current();
          const batch =
            state.checkpoint >= through
              ? []
              : (await log.readAll({ after: state.checkpoint, limit: batchSize })).filter(
                  (e) => e.position <= through,
                );
          if (batch.length === 0) {
            // Re-read next time: another writer (a copy of this service) may move it meanwhile.
            cached = undefined;
            return state.checkpoint;
          }
          await applyBatch(state, batch, heartbeat);
        }
      });
    },
    lastKnownPosition: () => known,
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reset() {
      cached = undefined;
    },
  };
  return projector;
}
