// Moves a projection's live generation forward as events arrive. JetStream says that
// something happened; the log says what, in order. Before applying a delivered event the
// projector reads the log after its checkpoint, so an event it never saw (a read model that
// lost writes when its store restarted, a delivery JetStream gave up on, a relay that skipped
// one) is applied first, in log order. Several events go in one atomic write when the log is
// ahead, and every write is a compare-and-set on the checkpoint, so duplicates and concurrent
// writers have no effect. A delivered event the log does not hold is dead-lettered: the log
// is the truth.
import { setTimeout as sleep } from "node:timers/promises";
import type { StoredEvent } from "@cairn/contracts";
import type { BatchApplier } from "./batch-applier.ts";
import type { DeadLetterStore } from "./dead-letter-store.ts";
import type { EventLogReader } from "./event-log-reader.ts";
import type { Projection } from "./projection.ts";

export type HandleOutcome = { kind: "applied" | "duplicate" | "not_in_log"; position: number };

/** A delivered event the log holds but cannot show yet (an older transaction is still open). */
export class LogNotReadableError extends Error {
  override readonly name = "LogNotReadableError";
  readonly code = "log_not_readable" as const;
}

export type LiveProjector = {
  readonly projection: Projection;
  /** Applies a delivered event, and first any earlier ones the read model lacks. */
  handle(event: StoredEvent, heartbeat?: () => void): Promise<HandleOutcome>;
  /** Applies what the log holds beyond the checkpoint (up to `through`); answers the checkpoint reached. */
  catchUp(heartbeat?: () => void, options?: { through?: number }): Promise<number>;
  /** The live generation's checkpoint, read from its store (so any copy's progress counts). */
  position(): Promise<number>;
  /** The last checkpoint this projector saw (0 before its first look). */
  lastKnownPosition(): number;
  /** Called whenever this projector moved the checkpoint. */
  onAdvance(listener: (position: number) => void): () => void;
  /** Forgets cached state (after a connection loss). */
  reset(): void;
};

export type LiveProjectorOptions = {
  projection: Projection;
  applier: BatchApplier;
  log: EventLogReader;
  deadLetters: DeadLetterStore;
  /** Events per write when catching up (default 200). */
  batchSize?: number;
  /** Pause between attempts while a rebuild holds live writes (default 50 ms). */
  pausedRetryMs?: number;
  /** How long a delivered event may stay unreadable in the log before the delivery is retried later (default 2 s). */
  visibilityWaitMs?: number;
};

type State = { generation: number; checkpoint: number };

export function createLiveProjector(options: LiveProjectorOptions): LiveProjector {
  const { projection, applier, log } = options;
  const { generations } = projection;
  const batchSize = options.batchSize ?? 200;
  const pausedRetryMs = options.pausedRetryMs ?? 50;
  const visibilityWaitMs = options.visibilityWaitMs ?? 2000;
  const listeners = new Set<(position: number) => void>();
  let cached: State | undefined;
  let known = 0;

  // One applier at a time in this process (the consumer and the catch-ups); copies of the
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
      const generation = await generations.live();
      cached = { generation, checkpoint: await generations.checkpoint(generation) };
      known = Math.max(known, cached.checkpoint);
    }
    return cached;
  }

  /** Applies events that follow the cached checkpoint; false when it had moved (read again). */
  async function applyBatch(state: State, events: readonly StoredEvent[], heartbeat?: () => void) {
    try {
      const result = await applier.apply({ ...state, writer: { kind: "live" } }, events);
      heartbeat?.();
      if (result.checkpoint > state.checkpoint) {
        cached = { generation: state.generation, checkpoint: result.checkpoint };
        advanced(result.checkpoint);
      }
      if (result.outcome === "ok") return true;
      cached = undefined;
      if (result.outcome === "paused") await sleep(pausedRetryMs);
      return false;
    } catch (error) {
      cached = undefined;
      throw error;
    }
  }

  return {
    projection,
    handle(event, heartbeat) {
      return exclusive(async (): Promise<HandleOutcome> => {
        const deadline = Date.now() + visibilityWaitMs;
        let appliedHere = false;
        for (;;) {
          const state = await current();
          // The cache is never ahead of the truth: covered by the checkpoint means applied.
          if (event.position <= state.checkpoint) {
            return { kind: appliedHere ? "applied" : "duplicate", position: state.checkpoint };
          }
          const batch = await log.readAll({ after: state.checkpoint, limit: batchSize });
          if (batch.length > 0) {
            appliedHere = (await applyBatch(state, batch, heartbeat)) || appliedHere;
            continue;
          }
          // The log shows nothing after the checkpoint. Is the event in it at all?
          if ((await log.findEvents([event.eventId])).length === 0) {
            await options.deadLetters.record(projection.name, state.generation, [
              {
                event,
                reason: "not_in_log",
                error: `event ${event.eventId} (position ${event.position}) is not in the log, which is the truth`,
                attempts: 1,
              },
            ]);
            return { kind: "not_in_log", position: event.position };
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
    async position() {
      const active = await generations.active();
      const position = active === null ? 0 : await generations.checkpoint(active);
      known = Math.max(known, position);
      return position;
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
}
