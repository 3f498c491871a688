// What a read model is to the runtime: plain data. A projection names itself, lists the event
// types it applies, says whether it needs memory text, and applies a batch of events to one of
// its generations, moving that generation's checkpoint in the same atomic write. Everything
// else — reading the log in order, decoding, opening sealed text, retries with growing
// backoff, dead letters, the JetStream doorbell, rebuilds beside the live generation — is the
// runtime's, the same for every read model.
import type { DecodedEvent, EventType, ProjectionName } from "@cairn/contracts";
import type { DeadLetterReason } from "./dead-letter.ts";
import type { ProjectionSnapshot } from "./snapshot.ts";

/**
 * Who writes: live events go to the active generation, a rebuild to the one it builds. A
 * rebuild's writer may carry `onSent`, which the store calls once the next batch may be read
 * (see `Projection.pipelinedRebuild`).
 */
export type ProjectionWriter = { kind: "live" } | { kind: "builder"; token: string; onSent?: () => void };

/**
 * `ok`: applied and the checkpoint moved; `stale`: someone else moved the checkpoint first;
 * `not_owner`: the generation is no longer the writer's (switched, or the store lost it);
 * `paused`: a rebuild is switching generations, try again shortly.
 */
export type ApplyOutcome = "ok" | "stale" | "not_owner" | "paused";

/** An event of the batch the projection itself refused (its fold cannot apply it). */
export type RefusedEvent = { event: DecodedEvent; reason: DeadLetterReason; error: string };

/**
 * `refused`: events the projection set aside in what it committed (whatever the outcome: one
 * that commits event by event may have committed some before it found the checkpoint moved).
 * `checkpoint`: how far it committed when the outcome is not `ok` (default: nothing).
 */
export type ApplyResult = { outcome: ApplyOutcome; refused: RefusedEvent[]; checkpoint?: number };

/** Events to apply: all after `expected` (the checkpoint read), ending the batch at `next`. */
export type ProjectionBatch = {
  generation: number;
  writer: ProjectionWriter;
  expected: number;
  next: number;
  /** The events the projection handles, decoded, in log order (sealed text opened when it reads text). */
  events: readonly DecodedEvent[];
};

export type ResumableGeneration = { generation: number; checkpoint: number };

/** A read model's generations: one serves and receives live events, a rebuild fills another. */
export interface Generations {
  /** The generation live events go to; the first one (empty, checkpoint 0) is created when there is none. */
  live(): Promise<number>;
  active(): Promise<number | null>;
  checkpoint(generation: number): Promise<number>;
  /** A new, empty generation owned by the builder `token`. */
  create(token: string): Promise<number>;
  /**
   * The version of the projection a generation was built by (`Projection.version`), or null
   * for one that recorded none.
   */
  version(generation: number): Promise<string | null>;
  /** Generations an interrupted rebuild left that a new run can continue. */
  resumable(): Promise<ResumableGeneration[]>;
  /** Generations neither serving nor being built (a switch whose drop did not happen). */
  leftovers(): Promise<number[]>;
  claim(generation: number, token: string): Promise<void>;
  /** Last work on a built generation before it serves (an index built after the bulk load). */
  prepareToServe(generation: number): Promise<void>;
  /** Holds live writes back (for `ttlMs`) while a rebuild catches up and switches. */
  pause(token: string, ttlMs: number): Promise<void>;
  resume(token: string): Promise<void>;
  /** Makes `to` active if `from` still is and has not moved past `checkpoint`. */
  switchActive(
    from: number | null,
    to: number,
    checkpoint: number,
    token: string,
  ): Promise<"ok" | "moved" | "behind">;
  drop(generation: number): Promise<void>;
}

export type Projection = {
  /** `<service>.<read model>`: the name of its checkpoint, dead letters, rebuild and doctor line. */
  readonly name: ProjectionName;
  /** The event types it applies; the checkpoint moves past every other event without it. */
  readonly handles: ReadonlySet<EventType>;
  /**
   * What the read model holds changes with this (a new text analysis, a new layout): a live
   * generation built by another version is rebuilt from the log when the service starts,
   * while it keeps serving. Undefined: every generation fits.
   */
  readonly version?: string;
  /** Memory text is opened with the seals before `apply` (a purged memory's is empty). */
  readonly readsText: boolean;
  /**
   * A batch's write calls the builder's `onSent` as soon as the next batch's reads would see
   * what it writes (a store that carries out what it is sent in order on one connection: once
   * the write is sent; one on a pool: once it holds the checkpoint, with its rows kept in memory
   * for those reads until it commits). A rebuild then reads, opens and folds the next batch
   * while the store is still writing this one.
   */
  readonly pipelinedRebuild?: boolean;
  readonly generations: Generations;
  apply(batch: ProjectionBatch): Promise<ApplyResult>;
  /**
   * Brings what these events touched up to date in a generation, out of log order (a dead
   * letter retried): the streams they belong to are folded again from the log, or the events
   * applied where their effect does not depend on order.
   */
  repair(generation: number, events: readonly DecodedEvent[]): Promise<void>;
  /** Throws when the store cannot be reached: a failure is then the store's, not the event's. */
  probe(): Promise<void>;
  /**
   * A generation's data as ordered plain values, without the runtime's bookkeeping: a
   * rebuild from the log must give the same snapshot as the live generation.
   */
  snapshot(generation: number): Promise<ProjectionSnapshot>;
  /** What the status report adds about the serving generation (e.g. its embedding model). */
  describe?(): Promise<Record<string, unknown>>;
};
