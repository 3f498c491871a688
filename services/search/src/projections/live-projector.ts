// Moves a read model forward as events arrive. JetStream says that something happened; the
// log says what, in order. Before applying a delivered event the projector reads the log
// after its checkpoint, so an event it never saw (a read model that lost writes when Redis
// restarted, a delivery JetStream gave up on, a relay that skipped one) is applied first, in
// log order. Several events go in one atomic write when the log is ahead, and every write is
// a compare-and-set on the checkpoint, so duplicates and concurrent writers have no effect.

import { setTimeout as sleep } from "node:timers/promises";
import type { StoredEvent } from "@cairn/contracts";
import type { DeadLetter } from "./fold-events.ts";
import type { ProjectionTarget } from "./projection-target.ts";

/** The part of the event store a projection reads. */
export type EventLogReader = {
  readAll(options: { after: number; limit: number }): Promise<StoredEvent[]>;
  lastPosition(): Promise<number>;
};

export type HandleOutcome =
  | { kind: "applied"; position: number }
  | { kind: "duplicate"; position: number }
  | { kind: "dead_lettered"; position: number; deadLetter: DeadLetter };

export type LiveProjector = {
  readonly target: ProjectionTarget;
  /** Applies a delivered event, and first any earlier ones the read model lacks. */
  handle(event: StoredEvent, heartbeat?: () => void): Promise<HandleOutcome>;
  /** Applies every event the log holds beyond the checkpoint; returns the checkpoint reached. */
  catchUp(heartbeat?: () => void): Promise<number>;
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
};

export function createLiveProjector(options: LiveProjectorOptions): LiveProjector {
  const { target, log } = options;
  const batchSize = options.batchSize ?? 200;
  const pausedRetryMs = options.pausedRetryMs ?? 50;
  const listeners = new Set<(position: number) => void>();
  let cached: { generation: number; checkpoint: number } | undefined;
  let known = 0;

  function advanced(position: number): void {
    known = Math.max(known, position);
    for (const listener of listeners) listener(position);
  }

  async function current(): Promise<{ generation: number; checkpoint: number }> {
    if (!cached) {
      const generation = await target.liveGeneration();
      cached = { generation, checkpoint: await target.checkpoint(generation) };
      known = Math.max(known, cached.checkpoint);
    }
    return cached;
  }

  /** Applies one batch; returns false when it must be retried with fresh state. */
  async function applyBatch(events: readonly StoredEvent[], heartbeat?: () => void) {
    const state = await current();
    const last = events.at(-1) as StoredEvent;
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
    async handle(event, heartbeat) {
      for (;;) {
        const state = await current();
        if (event.position <= state.checkpoint) {
          // The cache can only be behind the truth, so this is a duplicate for sure.
          return { kind: "duplicate", position: state.checkpoint };
        }
        let batch = await log.readAll({ after: state.checkpoint, limit: batchSize });
        const reachesEvent = batch.some((e) => e.position >= event.position);
        if (!reachesEvent) {
          if (batch.length === batchSize) {
            // Far behind: apply what the log has before this event, then look again.
            await applyBatch(batch, heartbeat);
            continue;
          }
          // The log does not show the event yet (its snapshot horizon lags the relay for an
          // instant); everything before it is there, so it follows them.
          batch = [...batch, event];
        }
        const result = await applyBatch(batch, heartbeat);
        if (!result) continue;
        const last = batch.at(-1) as StoredEvent;
        if (last.position < event.position) continue;
        const deadLetter = result.deadLetters.find((d) => d.event?.eventId === event.eventId);
        if (deadLetter) return { kind: "dead_lettered", position: event.position, deadLetter };
        return { kind: "applied", position: event.position };
      }
    },
    async catchUp(heartbeat) {
      for (;;) {
        const state = await current();
        const batch = await log.readAll({ after: state.checkpoint, limit: batchSize });
        if (batch.length === 0) {
          // Re-read next time: another writer (a copy of this service) may move it meanwhile.
          cached = undefined;
          return state.checkpoint;
        }
        await applyBatch(batch, heartbeat);
      }
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
