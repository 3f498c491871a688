// What the projection runners (live consumer, catch-up, rebuild) need from a read model. The
// lexical (Redis) and vector (pgvector) read models both implement it, so one runner moves
// both with the same guarantees.
import type { ProjectionName, ProjectionStatus, StoredEvent } from "@cairn/contracts";
import type { DeadLetter } from "./fold-events.ts";

/** Who writes: live events go to the active generation, a rebuild to the one it builds. */
export type ProjectionWriter = { kind: "live" } | { kind: "builder"; token: string };

/**
 * `ok`: applied and the checkpoint moved; `stale`: someone else moved the checkpoint first;
 * `not_owner`: the generation is no longer the writer's (switched, or the store lost it);
 * `paused`: a rebuild is switching generations, try again shortly.
 */
export type ApplyOutcome = "ok" | "stale" | "not_owner" | "paused";

export type ApplyResult = { outcome: ApplyOutcome; deadLetters: DeadLetter[] };

export type BuildingGeneration = { generation: number; checkpoint: number };

export interface ProjectionTarget {
  readonly name: ProjectionName;
  /** The generation live events go to; the first one is created when there is none. */
  liveGeneration(): Promise<number>;
  activeGeneration(): Promise<number | null>;
  checkpoint(generation: number): Promise<number>;
  /**
   * Applies events (log order, all after `expected`) to a generation and moves its checkpoint
   * from `expected` to `next` in the same atomic write.
   */
  apply(
    generation: number,
    writer: ProjectionWriter,
    expected: number,
    events: readonly StoredEvent[],
    next: number,
  ): Promise<ApplyResult>;
  /** Records events dropped before they could be applied (unreadable messages). */
  recordDeadLetters(generation: number, letters: readonly DeadLetter[]): Promise<void>;
  /** Generations an interrupted rebuild left that a new run can continue. */
  resumableGenerations(): Promise<BuildingGeneration[]>;
  /** Generations neither serving nor being built (a switch whose drop did not happen). */
  leftoverGenerations(): Promise<number[]>;
  createGeneration(token: string): Promise<number>;
  claimGeneration(generation: number, token: string): Promise<void>;
  /** Last work on a built generation before it serves (the vector HNSW index). */
  prepareToServe(generation: number): Promise<void>;
  pause(token: string, ttlMs: number): Promise<void>;
  resume(token: string): Promise<void>;
  switchActive(
    from: number | null,
    to: number,
    checkpoint: number,
    token: string,
  ): Promise<"ok" | "moved" | "behind">;
  dropGeneration(generation: number): Promise<void>;
  status(): Promise<ProjectionStatus>;
}
