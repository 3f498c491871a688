// Carries out an import plan through ingest, step by step, so every admission rule applies:
// secrets are refused and reported, a memory whose content is already stored is reported with
// the memory that holds it, a slot held by another memory is reported. The commands go
// through `send` (the bus, or the gateway's backend); each carries an idempotency key made from
// what the step writes, so a command retried after a timeout never writes twice, and the same
// records imported again (the same file, or a copy of it) are answered as the first time and
// add nothing. Reading files and talking to the bus are the caller's.
import { createHash } from "node:crypto";
import { type ErrorCode, isCairnError, type PlanResult, type WriteResult } from "@cairn/contracts";
import type { ImportPlan, ImportStep } from "./import-plan.ts";
import { importSteps } from "./import-plan.ts";

export type SendCommand = (
  command: string,
  payload: Record<string, unknown>,
) => Promise<WriteResult | PlanResult>;

export type ImportOutcome = {
  /** Records written (a memory, proposal or handoff each). */
  created: number;
  /** Records an earlier import of the same records wrote: answered again, nothing written. */
  alreadyImported: number;
  /** Later steps carried out: supersedes, promotions, statuses, invalidations. */
  stepsApplied: number;
  /** Records whose content was already stored, with the memory that holds it. */
  duplicates: { sourceRef: string; holderId: string | null }[];
  /** Records or steps ingest refused, with its code and message. */
  refused: { sourceRef: string; action: string; code: ErrorCode | "internal"; message: string }[];
  /** What the importer itself could not read. */
  problems: ImportPlan["problems"];
};

const createCommand = {
  memory: "memory.create",
  proposal: "proposal.submit",
  handoff: "handoff.open",
} as const;
const reviseCommand = {
  memory: "memory.update",
  proposal: "proposal.revise",
  handoff: "handoff.update",
} as const;
const statusCommand = {
  archived: "memory.archive",
  deleted: "memory.delete",
  rejected: "proposal.reject",
  completed: "handoff.complete",
} as const;

/**
 * A key per step, made from what it writes (not from where the record was read) and who
 * writes it: the same records imported again by the same caller send the same keys, an edited
 * record a new one. Ingest binds a key to the principal that first sent it, so another
 * caller's import of the same file gets keys of its own (and its records are reported as
 * duplicates of the first import's, not refused as a reused key).
 */
function idempotencyKey(step: ImportStep, actor: string): string {
  const what = JSON.stringify(step, (field, value) => (field === "sourceRef" ? undefined : value));
  return `import:${createHash("sha256").update(actor).update("\u0000").update(what).digest("hex").slice(0, 40)}`;
}

function isPlan(result: WriteResult | PlanResult): result is PlanResult {
  return "dryRun" in result;
}

/**
 * Sends again, with the same idempotency key, while the service is away or slow. The answer to
 * a send after a lost one is marked replayed when the lost one landed: it is this import's own
 * write, so the mark is dropped (an earlier import's write is answered replayed at the first send).
 */
async function withRetries(send: SendCommand, command: string, payload: Record<string, unknown>) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const result = await send(command, payload);
      if (attempt > 1 && "replayed" in result) {
        const { replayed: _mark, ...own } = result;
        return own;
      }
      return result;
    } catch (error) {
      const transient = isCairnError(error) && (error.code === "unavailable" || error.code === "timeout");
      if (!transient || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

export type ApplyImportOptions = {
  /** Called after each step, with the steps done and their total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Who writes (the principal, as the caller knows it): part of every idempotency key. An
   * import by the same caller again is then answered step by step as the first time.
   */
  actor?: string;
  /** Stops before the next step (the client went away); steps already sent stay written. */
  signal?: AbortSignal;
};

export async function applyImport(
  plan: ImportPlan,
  sendOnce: SendCommand,
  options: ApplyImportOptions = {},
): Promise<ImportOutcome> {
  const send: SendCommand = (command, payload) => withRetries(sendOnce, command, payload);
  const steps = importSteps(plan);
  const outcome: ImportOutcome = {
    created: 0,
    alreadyImported: 0,
    stepsApplied: 0,
    duplicates: [],
    refused: [],
    problems: plan.problems,
  };
  /** Where each source record went: its new id and version. */
  const written = new Map<string, { id: string; version: number }>();
  /** Records not written because their content is already stored: their later steps are moot. */
  const skipped = new Set<string>();
  const keyOf = (step: ImportStep) => step.item.originalId ?? step.item.sourceRef;
  // A destructive command runs in two steps: its plan, then the same command with the token.
  // Sent first without either, it is answered as before when an earlier import ran it (its
  // key), and otherwise refused for want of a plan.
  const twoStep = async (command: string, payload: Record<string, unknown>) => {
    try {
      return await send(command, payload);
    } catch (error) {
      if (!isCairnError(error) || error.code !== "precondition_required") throw error;
    }
    const first = await send(command, { ...payload, dryRun: true });
    return isPlan(first) ? send(command, { ...payload, token: first.token }) : first;
  };
  let done = 0;
  for (const step of steps) {
    options.signal?.throwIfAborted();
    const key = idempotencyKey(step, options.actor ?? "");
    try {
      if (step.action === "create") {
        const result = (await send(createCommand[step.item.tier], {
          [step.item.tier]: step.item.memory,
          idempotencyKey: key,
        })) as WriteResult;
        let version = result.version;
        for (const [i, changes] of (step.item.revisions ?? []).entries()) {
          const revised = (await send(reviseCommand[step.item.tier], {
            id: result.id,
            expectedVersion: version,
            changes,
            idempotencyKey: `${key}:r${i}`,
          })) as WriteResult;
          version = revised.version;
        }
        written.set(keyOf(step), { id: result.id, version });
        if (result.replayed) outcome.alreadyImported += 1;
        else outcome.created += 1;
      } else {
        const target = step.action === "supersede" || step.action === "promote" ? step.of : keyOf(step);
        const at = written.get(target);
        if (!at && skipped.has(target)) continue;
        if (!at) {
          outcome.refused.push({
            sourceRef: step.item.sourceRef,
            action: step.action,
            code: "not_found",
            message: `the record it follows (${target}) was not imported`,
          });
          continue;
        }
        const base = { id: at.id, expectedVersion: at.version, idempotencyKey: key };
        let result: WriteResult | PlanResult;
        if (step.action === "supersede") {
          const { slot: _slot, ...replacement } = step.item.memory;
          result = await twoStep("memory.supersede", { ...base, replacement, reason: "imported" });
          const next = result as WriteResult;
          written.set(keyOf(step), { id: next.id, version: next.version });
          if (next.replayed) outcome.alreadyImported += 1;
          else outcome.created += 1;
        } else if (step.action === "promote") {
          result = await send("proposal.promote", base);
          const next = result as WriteResult;
          written.set(keyOf(step), { id: next.id, version: next.version });
          if (next.replayed) outcome.alreadyImported += 1;
          else outcome.created += 1;
        } else if (step.action === "invalidate") {
          result = await send("memory.invalidate", {
            ...base,
            invalidAt: step.invalidAt,
            reason: "imported",
          });
          if (!isPlan(result) && !result.replayed) outcome.stepsApplied += 1;
        } else {
          const command = statusCommand[step.status];
          const payload =
            step.status === "completed" ? { ...base, summary: null } : { ...base, reason: "imported" };
          result = step.status === "deleted" ? await twoStep(command, payload) : await send(command, payload);
          if (!isPlan(result) && !result.replayed) outcome.stepsApplied += 1;
        }
        if (!isPlan(result)) {
          const own = result.affected?.find((a) => a.id === at.id);
          written.set(target, { id: at.id, version: own?.version ?? result.version });
        }
      }
    } catch (error) {
      if (isCairnError(error) && error.code === "duplicate_content") {
        skipped.add(keyOf(step));
        const holder = (error.details as { holderId?: unknown } | undefined)?.holderId;
        outcome.duplicates.push({
          sourceRef: step.item.sourceRef,
          holderId: typeof holder === "string" ? holder : null,
        });
      } else if (
        isCairnError(error) &&
        error.code !== "internal" &&
        error.code !== "unavailable" &&
        error.code !== "timeout"
      ) {
        outcome.refused.push({
          sourceRef: step.item.sourceRef,
          action: step.action,
          code: error.code,
          message: error.message,
        });
      } else {
        throw error;
      }
    } finally {
      done += 1;
      options.onProgress?.(done, steps.length);
    }
  }
  return outcome;
}
