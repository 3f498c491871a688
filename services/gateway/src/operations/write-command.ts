// Every write: a command to ingest (which decides who may do what), and the position it reached
// remembered for the caller's read-your-writes.
import { type IngestCommandName, isPlanResult, type PlanResult, type WriteResult } from "@cairn/contracts";
import type { CommandInput } from "../backend/cairn-backend.ts";
import type { Caller } from "./caller.ts";
import type { OperationsDeps } from "./operations-deps.ts";

export type WriteOutcome = WriteResult | PlanResult;

/**
 * Sends a command to ingest as the caller; remembers the position it reached. Who may do
 * what (global scope, review) is ingest's to decide, with the memory model's rules.
 */
export async function write<N extends IngestCommandName>(
  deps: OperationsDeps,
  caller: Caller,
  name: N,
  input: Partial<CommandInput<N>>,
): Promise<WriteOutcome> {
  const outcome = await deps.backend.command(caller.principal, name, input);
  if (isPlanResult(outcome)) return outcome;
  await deps.positions.record(caller.keyId, outcome.position);
  // A retry answers exactly what the first attempt did.
  const { replayed: _replayed, ...answer } = outcome;
  return answer;
}
