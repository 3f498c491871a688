export { applyEventByEvent } from "./apply-event-by-event.ts";
export { ApplyRetryError, isApplyRetryError } from "./apply-retry-error.ts";
export type { ApplyTarget, BatchApplier, BatchApplierOptions, BatchOutcome } from "./batch-applier.ts";
export { createBatchApplier } from "./batch-applier.ts";
export type { DeadLetter, DeadLetterReason } from "./dead-letter.ts";
export type { DeadLetterRow, DeadLetterStore } from "./dead-letter-store.ts";
export { createDeadLetterStore } from "./dead-letter-store.ts";
export type { EventLogReader } from "./event-log-reader.ts";
export type { HandleOutcome, LiveProjector, LiveProjectorOptions } from "./live-projector.ts";
export { createLiveProjector, LogNotReadableError } from "./live-projector.ts";
export type {
  GenerationMeta,
  PostgresGeneration,
  PostgresGenerationHooks,
  PostgresGenerations,
} from "./postgres-generations.ts";
export { createPostgresGenerations } from "./postgres-generations.ts";
export type { PreparedBatch } from "./prepare-batch.ts";
export { prepareBatch } from "./prepare-batch.ts";
export type {
  ApplyOutcome,
  ApplyResult,
  Generations,
  Projection,
  ProjectionBatch,
  ProjectionWriter,
  RefusedEvent,
  ResumableGeneration,
} from "./projection.ts";
export type { ProjectionConsumer, ProjectionConsumerOptions } from "./projection-consumer.ts";
export { ensureProjectionConsumer, startProjectionConsumer } from "./projection-consumer.ts";
export type { ProjectionHost } from "./projection-host.ts";
export type {
  ProjectionRuntime,
  ProjectionRuntimeOptions,
  ProjectionRuntimeSettings,
} from "./projection-runtime.ts";
export { startProjectionRuntime } from "./projection-runtime.ts";
export { projectionRuntimeEnv, projectionSettingsFromEnv } from "./projection-runtime-env.ts";
export { rebuildFromHost } from "./rebuild-from-host.ts";
export type { RebuildOptions, RebuildPhase, RebuildProgress, RebuildResult } from "./rebuild-projection.ts";
export { RebuildAbortedError, rebuildLockKey, rebuildProjection } from "./rebuild-projection.ts";
export type { RedisCommand, RedisGenerationHooks, RedisGenerations } from "./redis-generations.ts";
export { createRedisGenerations } from "./redis-generations.ts";
export { RedisWrites } from "./redis-writes.ts";
export { retryDeadLetters } from "./retry-dead-letters.ts";
export type { RetryPolicy } from "./retry-policy.ts";
export { backoffMs, defaultRetryPolicy } from "./retry-policy.ts";
export type { ProjectionSnapshot, SnapshotEntry } from "./snapshot.ts";
export { snapshotRedisPrefix, snapshotRows } from "./snapshot.ts";
export type { PositionSource } from "./wait-for-position.ts";
export { waitForPosition } from "./wait-for-position.ts";
