// Rebuilds a projection from the Postgres log into a new generation while the old one keeps
// serving, then switches over and drops the old one.
//
// 1. One rebuild per projection at a time (a Postgres advisory lock held by this process).
// 2. A generation an interrupted run left is continued from its checkpoint, so stopping a
//    rebuild (Ctrl-C, a crash) and running it again is safe and loses nothing.
// 3. Replay: the log in batches, each applied with its checkpoint in one atomic write, with
//    the same decoding, retries and dead letters as live projection. A projection whose next
//    batch's reads can see a write still under way (`pipelinedRebuild`) has that batch read
//    and folded while the store writes the one before; at a batch that does not apply, it
//    goes on one batch at a time.
// 4. Switch: live writes are paused (with a time limit, in case this process dies), the new
//    generation catches up to the live checkpoint, and one compare-and-set makes it active.
//    The live projector then finds its generation gone, picks up the new one and continues
//    from its checkpoint: events the rebuild already applied are duplicates to it.
import { createHash, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { CairnError, type ProjectionName, type StoredEvent } from "@cairn/contracts";
import type pg from "pg";
import type { BatchApplier } from "./batch-applier.ts";
import type { EventLogReader } from "./event-log-reader.ts";
import type { Projection } from "./projection.ts";

export type RebuildPhase = "replay" | "index" | "switch" | "done";

export type RebuildProgress = {
  projection: ProjectionName;
  phase: RebuildPhase;
  generation: number;
  /** The checkpoint of the generation being built. */
  position: number;
  /** The end of the log when the rebuild started (positions approximate event counts). */
  target: number;
  /** Events applied by this run. */
  events: number;
  startedAt: number;
};

export type RebuildOptions = {
  projection: Projection;
  applier: BatchApplier;
  log: EventLogReader;
  /** For the advisory lock that keeps two rebuilds of one projection apart. */
  pool: pg.Pool;
  batchSize?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /** Aborting stops between batches; a rerun continues where this one stopped. */
  signal?: AbortSignal;
  /** How long live writes may stay paused if this process dies mid-switch (default 30 s). */
  pauseTtlMs?: number;
  /** Queries in flight on the old generation get this long before it is dropped (default 2 s). */
  dropDelayMs?: number;
};

export type RebuildResult = {
  projection: ProjectionName;
  generation: number;
  previous: number | null;
  position: number;
  events: number;
  seconds: number;
  resumed: boolean;
};

/** An advisory lock key per projection, apart from the relay's and the append lock (those start with "CAIRN"). */
export function rebuildLockKey(name: ProjectionName): bigint {
  const digest = createHash("sha256").update(`cairn-rebuild:${name}`).digest();
  return digest.readBigInt64BE(0);
}

const noop = () => {};

export class RebuildAbortedError extends Error {
  override readonly name = "RebuildAbortedError";
  readonly code = "rebuild_aborted" as const;
}

export async function rebuildProjection(options: RebuildOptions): Promise<RebuildResult> {
  const { projection, applier, log, signal } = options;
  const { generations } = projection;
  const batchSize = options.batchSize ?? 500;
  const pauseTtlMs = options.pauseTtlMs ?? 30_000;
  const token = randomUUID();
  const startedAt = performance.now();
  const lockKey = rebuildLockKey(projection.name).toString();
  let events = 0;

  const lockClient = await options.pool.connect();
  try {
    const { rows } = await lockClient.query<{ locked: boolean }>(
      "select pg_try_advisory_lock($1) as locked",
      [lockKey],
    );
    if (!rows[0]?.locked) {
      throw new CairnError("precondition_required", `a rebuild of ${projection.name} is already running`, {
        hint: "wait for it to finish; `pnpm cairn rebuild` can be run again afterwards",
      });
    }
    try {
      // Generations a crashed run switched away from but did not drop.
      for (const leftover of await generations.leftovers()) await generations.drop(leftover);
      // Continue what an interrupted run left, or start a new generation.
      const resumable = (await generations.resumable()).sort((a, b) => b.generation - a.generation);
      const resumeFrom = resumable[0];
      let generation: number;
      if (resumeFrom) {
        generation = resumeFrom.generation;
        await generations.claim(generation, token);
        for (const stale of resumable.slice(1)) await generations.drop(stale.generation);
      } else {
        generation = await generations.create(token);
      }
      const writer = { kind: "builder" as const, token };
      let position = await generations.checkpoint(generation);
      const targetPosition = await log.lastPosition();
      const report = (phase: RebuildPhase) =>
        options.onProgress?.({
          projection: projection.name,
          phase,
          generation,
          position,
          target: Math.max(targetPosition, position),
          events,
          startedAt,
        });

      /**
       * Sends a batch to be applied after `after`, tried once. Answers once its write is on its
       * way to the store (or the attempt ended before that), with the attempt's outcome to come.
       */
      const sendAhead = async (batch: StoredEvent[], after: number) => {
        let onSent = noop;
        const onTheWay = new Promise<void>((resolve) => {
          onSent = resolve;
        });
        const outcome = applier.applyOnce(
          { generation, writer: { ...writer, onSent }, checkpoint: after },
          batch,
        );
        outcome.catch(noop);
        await Promise.race([onTheWay, outcome.then(noop, noop)]);
        return { batch, outcome };
      };

      /**
       * Replays to the end of the log with two batches under way: the next one is read, opened
       * and folded while the store is still writing the one before (its reads see that write,
       * and its compare-and-set waits for it: see `Projection.pipelinedRebuild`). Each batch
       * is tried once. Answers false at the first that did not apply, once nothing it sent is
       * under way any more, with the position the store holds: `replay` goes on from there one
       * batch at a time, with its retries and dead letters.
       */
      const replayAhead = async (): Promise<boolean> => {
        /** Batches sent whose outcome is not taken yet, oldest first (two at most). */
        const underWay: Awaited<ReturnType<typeof sendAhead>>[] = [];
        let ahead = position;
        let completed = false;
        try {
          for (;;) {
            if (signal?.aborted) throw new RebuildAbortedError(`rebuild of ${projection.name} interrupted`);
            const batch = await log.readAll({ after: ahead, limit: batchSize });
            const last = batch.at(-1);
            if (last) {
              underWay.push(await sendAhead(batch, ahead));
              ahead = last.position;
            }
            const oldest = underWay.length > 1 || !last ? underWay.shift() : undefined;
            if (oldest) {
              const end = (oldest.batch.at(-1) as StoredEvent).position;
              const result = await oldest.outcome;
              if (result.outcome !== "ok" || result.checkpoint !== end) return false;
              events += oldest.batch.length;
              position = end;
              report("replay");
            }
            if (!last && underWay.length === 0) {
              completed = true;
              return true;
            }
          }
        } catch (error) {
          if (error instanceof RebuildAbortedError) throw error;
          return false;
        } finally {
          // Nothing sent from here may write behind what goes on after it.
          await Promise.all(underWay.map((u) => u.outcome.catch(noop)));
          if (!completed) position = await generations.checkpoint(generation);
        }
      };

      /** Applies the log to the new generation up to `until` (or its end); returns the checkpoint. */
      const replay = async (until = Number.POSITIVE_INFINITY): Promise<number> => {
        if (projection.pipelinedRebuild && until === Number.POSITIVE_INFINITY && (await replayAhead())) {
          return position;
        }
        const deadline = Date.now() + pauseTtlMs / 2;
        for (;;) {
          if (signal?.aborted) throw new RebuildAbortedError(`rebuild of ${projection.name} interrupted`);
          if (position >= until) return position;
          const batch = (await log.readAll({ after: position, limit: batchSize })).filter(
            (e) => e.position <= until,
          );
          if (batch.length === 0) {
            if (until === Number.POSITIVE_INFINITY) return position;
            // The live checkpoint is ahead of what the log shows this instant: wait for it.
            if (Date.now() > deadline) {
              throw new CairnError(
                "timeout",
                `the log does not show position ${until} yet; run the rebuild again`,
              );
            }
            await sleep(20);
            continue;
          }
          let result: Awaited<ReturnType<BatchApplier["apply"]>>;
          try {
            result = await applier.apply({ generation, writer, checkpoint: position }, batch);
          } catch (error) {
            const retryInMs = (error as { retryInMs?: number }).retryInMs;
            if (retryInMs === undefined) throw error;
            // An event is being retried; its backoff is the applier's.
            await sleep(retryInMs);
            continue;
          }
          if (result.outcome === "ok") {
            events += batch.filter((e) => e.position <= result.checkpoint).length;
            position = result.checkpoint;
            report("replay");
          } else if (result.outcome === "stale") {
            position = await generations.checkpoint(generation);
          } else {
            throw new CairnError(
              "precondition_required",
              `generation ${generation} of ${projection.name} was taken over by another rebuild`,
            );
          }
        }
      };

      report("replay");
      await replay();
      report("index");
      await generations.prepareToServe(generation);
      await replay();

      // Switch, with live writes paused so the serving generation stands still.
      report("switch");
      let previous: number | null = null;
      for (let attempt = 1; ; attempt += 1) {
        if (signal?.aborted) throw new RebuildAbortedError(`rebuild of ${projection.name} interrupted`);
        await generations.pause(token, pauseTtlMs);
        try {
          previous = await generations.active();
          const live = previous === null ? position : await generations.checkpoint(previous);
          await replay(live);
          const outcome = await generations.switchActive(previous, generation, live, token);
          if (outcome === "ok") break;
          if (outcome === "moved") {
            throw new CairnError(
              "precondition_required",
              `the active generation of ${projection.name} changed during the rebuild`,
            );
          }
          if (attempt >= 20) throw new CairnError("timeout", `could not switch ${projection.name}`);
        } finally {
          await generations.resume(token);
        }
      }
      report("done");
      if (previous !== null && previous !== generation) {
        await sleep(options.dropDelayMs ?? 2000);
        await generations.drop(previous);
      }
      return {
        projection: projection.name,
        generation,
        previous,
        position,
        events,
        seconds: (performance.now() - startedAt) / 1000,
        resumed: resumeFrom !== undefined,
      };
    } finally {
      await lockClient.query("select pg_advisory_unlock($1)", [lockKey]).catch(() => undefined);
    }
  } finally {
    lockClient.release();
  }
}
