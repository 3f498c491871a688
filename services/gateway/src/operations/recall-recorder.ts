// The recall record every read leaves (what feeds attention, depth and Hebbian links) is
// gathered per caller for a moment (`CAIRN_RECALL_BATCH_MS`) and sent to ingest as one
// command: one commit, one message on the bus, one pass of each projection for all of them,
// instead of one of each per read. A read never waits for it and never fails with it.
//
// A memory deleted or hidden between the read and the record is refused by ingest by id; the
// others are sent once more without it. Stopping the gateway sends what is gathered; a crash
// loses at most one moment's recalls of each caller (signals, never content).
import { isCairnError, limits, type Principal, type Recall } from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import type { CairnBackend } from "../backend/cairn-backend.ts";

export type RecallRecorder = {
  /** Gathers one recall of the caller's; sent within the batch window. */
  record(principal: Principal, recall: Recall): void;
  /** Sends everything gathered now and waits for what is in flight (on stop, and in tests). */
  flush(): Promise<void>;
};

/**
 * How long a caller's recalls are gathered by default: a second, so that a caller that reads
 * several times a second sends one command, one commit and one message for all of them. What
 * it delays is signals (attention, depth, links), never an answer; a crash loses at most this
 * long's recalls.
 */
export const defaultRecallBatchMs = 1000;

export type RecallRecorderOptions = {
  /** How long a caller's recalls are gathered before they are sent (0: those of the same tick). */
  batchMs: number;
  logger?: Logger | undefined;
};

type Gathered = { principal: Principal; recalls: Recall[]; timer: NodeJS.Timeout };

export function createRecallRecorder(
  backend: Pick<CairnBackend, "command">,
  options: RecallRecorderOptions,
): RecallRecorder {
  const gathered = new Map<string, Gathered>();
  const inFlight = new Set<Promise<void>>();

  async function deliver(principal: Principal, recalls: Recall[], again = false): Promise<void> {
    const [first, ...more] = recalls;
    if (!first) return;
    try {
      await backend.command(principal, "recalls.record", { ...first, more });
    } catch (error) {
      const gone = again ? null : refusedIds(error);
      if (gone) {
        const rest = recalls
          .map((r) => ({ ...r, memoryIds: r.memoryIds.filter((id) => !gone.has(id)) }))
          .filter((r) => r.memoryIds.length > 0);
        return deliver(principal, rest, true);
      }
      options.logger?.debug({ err: error, recalls: recalls.length }, "recording recalls failed");
    }
  }

  function send(key: string): void {
    const batch = gathered.get(key);
    if (!batch) return;
    gathered.delete(key);
    clearTimeout(batch.timer);
    const sending: Promise<void> = deliver(batch.principal, batch.recalls).finally(() =>
      inFlight.delete(sending),
    );
    inFlight.add(sending);
  }

  return {
    record(principal, recall) {
      const key = JSON.stringify([principal.tenant, principal.agent, principal.role, principal.primary]);
      let batch = gathered.get(key);
      if (!batch) {
        const timer = setTimeout(() => send(key), options.batchMs);
        timer.unref();
        batch = { principal, recalls: [], timer };
        gathered.set(key, batch);
      }
      batch.recalls.push(recall);
      if (batch.recalls.length >= limits.maxRecallsPerCommand) send(key);
    },
    async flush() {
      for (const key of [...gathered.keys()]) send(key);
      await Promise.all([...inFlight]);
    },
  };
}

/** The ids ingest named as not visible (a `not_found` refusal of a recall), or null. */
function refusedIds(error: unknown): Set<string> | null {
  if (!isCairnError(error) || error.code !== "not_found") return null;
  const ids = error.details?.ids;
  return Array.isArray(ids) && ids.length > 0 ? new Set(ids.map(String)) : null;
}
