// An import through the gateway: every step of the plan an ingest command sent as the caller,
// so the caller's role and scope decide what may be written, as for any other write. The
// highest position reached is remembered for the caller's read-your-writes.
import { type IngestCommandName, isPlanResult } from "@cairn/contracts";
import { applyImport, type ImportOutcome, type ImportPlan } from "@cairn/portability";
import type { Caller } from "./caller.ts";
import type { OperationsDeps } from "./operations-deps.ts";

export type ImportRecordsResult = ImportOutcome & {
  /** The highest log position the import's writes reached (null: it wrote nothing new). */
  position: number | null;
};

export async function importRecords(
  deps: OperationsDeps,
  caller: Caller,
  plan: ImportPlan,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<ImportRecordsResult> {
  let position: number | null = null;
  const outcome = await applyImport(
    plan,
    async (command, payload) => {
      const result = await deps.backend.command(caller.principal, command as IngestCommandName, payload);
      if (!isPlanResult(result)) position = Math.max(position ?? 0, result.position);
      return result;
    },
    {
      actor: JSON.stringify(caller.principal),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    },
  );
  if (position !== null) deps.positions.record(caller.keyId, position);
  return { ...outcome, position };
}
