// Group commit: appends that arrive while others are being written go to the log together,
// in one call of `cairn_append_batch`, one transaction and one commit (one WAL flush with
// fsync on). Each append keeps its own checks and its own answer: the function runs every
// command in a subtransaction, so one command's version conflict or taken reservation fails
// that command alone.
//
// No append waits for a batch to fill: one arriving when fewer than `maxInFlight` batches are
// being written goes at once; the others queue and leave together with the next batch. So a
// lone writer sees one round trip, and many writers share commits.
import { type Context, context } from "@cairn/telemetry";
import type pg from "pg";
import {
  type AppendInput,
  type AppendResult,
  type AppendRow,
  appendPayload,
  appendRefusal,
  appendResults,
  checkAppendInputs,
} from "./append-to-streams.ts";

/** A seal an append brings for a memory that has none yet (stored in the same transaction). */
export type NewSeal = { memoryId: string; tenant: string; seal: Uint8Array };

/** The memory already has a seal (or had one, destroyed by a purge): the append wrote nothing. */
export class SealExistsError extends Error {
  readonly code = "seal_exists" as const;
  readonly memoryId: string;
  readonly purged: boolean;

  constructor(memoryId: string, purged: boolean) {
    super(`memory ${memoryId} has a seal already${purged ? " (destroyed by a purge)" : ""}`);
    this.name = "SealExistsError";
    this.memoryId = memoryId;
    this.purged = purged;
  }
}

export function isSealExistsError(error: unknown): error is SealExistsError {
  return error instanceof SealExistsError;
}

export type GroupCommitOptions = {
  /** Appends per batch at most. */
  maxBatch?: number;
  /** Batches being written at once: one can commit while the next checks and inserts. */
  maxInFlight?: number;
};

export type GroupCommit = (
  inputs: readonly AppendInput[],
  seals?: readonly NewSeal[],
) => Promise<AppendResult[]>;

type Pending = {
  inputs: readonly AppendInput[];
  seals: readonly NewSeal[];
  attempts: number;
  context: Context;
  resolve: (results: AppendResult[]) => void;
  reject: (error: unknown) => void;
};

type BatchRow = AppendRow & { command_index: number; error_code: string | null; error_detail: string | null };

/** How often an append is tried again when a concurrent commit came first (as `appendToStreams`). */
const maxAttempts = 20;

/** A Postgres error about the statement (it has a SQLSTATE), not about the connection or the server. */
function isStatementError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57|53|58)/.test(code);
}

function uniqueViolation(detail: string | null): Error {
  return Object.assign(new Error("a concurrent append kept committing first"), {
    code: "23505",
    detail: detail ?? undefined,
  });
}

export function createGroupCommit(pool: pg.Pool, options: GroupCommitOptions = {}): GroupCommit {
  const maxBatch = options.maxBatch ?? 128;
  const maxInFlight = options.maxInFlight ?? 2;
  const queue: Pending[] = [];
  let inFlight = 0;

  function pump(): void {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      inFlight += 1;
      void write(batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  }

  async function write(batch: Pending[]): Promise<void> {
    let rows: BatchRow[];
    try {
      const payload = batch.map((p) => ({
        appends: appendPayload(p.inputs),
        seals: p.seals.map((s) => ({
          memoryId: s.memoryId,
          tenant: s.tenant,
          seal: Buffer.from(s.seal).toString("base64"),
        })),
      }));
      // The call is traced under the first append's span (a batch has one round trip).
      ({ rows } = await context.with(batch[0]?.context ?? context.active(), () =>
        pool.query<BatchRow>({
          name: "cairn-append-batch",
          text: "select * from cairn_append_batch($1::jsonb)",
          values: [JSON.stringify(payload)],
        }),
      ));
    } catch (error) {
      if (batch.length > 1 && isStatementError(error)) {
        // One append's data broke the statement for all: each alone, so only that one fails.
        for (const pending of batch) await write([pending]);
        return;
      }
      for (const pending of batch) pending.reject(error);
      return;
    }
    const byCommand = new Map<number, BatchRow[]>();
    for (const row of rows) {
      const list = byCommand.get(row.command_index) ?? [];
      list.push(row);
      byCommand.set(row.command_index, list);
    }
    const again: Pending[] = [];
    await Promise.all(
      batch.map(async (pending, i) => {
        const own = byCommand.get(i + 1) ?? [];
        const failed = own.find((r) => r.error_code !== null);
        if (!failed) {
          try {
            pending.resolve(await appendResults(pool, pending.inputs, own));
          } catch (error) {
            pending.reject(error);
          }
          return;
        }
        const code = failed.error_code ?? "";
        if (code === "23505") {
          // A concurrent commit came first; checking again gives the right answer.
          pending.attempts += 1;
          if (pending.attempts < maxAttempts) again.push(pending);
          else pending.reject(uniqueViolation(failed.error_detail));
          return;
        }
        if (code === "CA004") {
          const detail = JSON.parse(failed.error_detail ?? "{}") as { memoryId?: string; purged?: boolean };
          pending.reject(new SealExistsError(String(detail.memoryId), detail.purged === true));
          return;
        }
        pending.reject(
          appendRefusal(code, failed.error_detail ?? undefined) ??
            new Error(`append failed with ${code}: ${failed.error_detail}`),
        );
      }),
    );
    queue.unshift(...again);
  }

  return (inputs, seals = []) => {
    checkAppendInputs(inputs);
    return new Promise<AppendResult[]>((resolve, reject) => {
      queue.push({ inputs, seals, attempts: 0, context: context.active(), resolve, reject });
      pump();
    });
  };
}
