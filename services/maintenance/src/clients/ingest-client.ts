// Maintenance talks to ingest like any client: commands over NATS with the tenant's
// maintenance principal, the run id as correlation id (so a run's effects can be found in
// the log), and an idempotency key per step (so a retried request writes nothing twice).
import { call } from "@cairn/bus";
import {
  CairnError,
  type CommandName,
  commandRpc,
  isPlanResult,
  type PlanResult,
  type Principal,
  type WriteResult,
} from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";

export type IngestClient = {
  /** A one-step command. */
  send(command: CommandName, payload: Record<string, unknown>, idempotencyKey?: string): Promise<WriteResult>;
  /** The dry run of a two-step command: its plan and token. Changes nothing. */
  plan(command: CommandName, payload: Record<string, unknown>): Promise<PlanResult>;
  /** Executes a two-step command with a token from its dry run. */
  execute(
    command: CommandName,
    payload: Record<string, unknown>,
    token: string,
    idempotencyKey: string,
  ): Promise<WriteResult>;
};

export function createIngestClient(
  nc: NatsConnection,
  options: { principal: Principal; runId: string; timeoutMs: number },
): IngestClient {
  const request = (command: CommandName, payload: Record<string, unknown>) =>
    call(
      nc,
      commandRpc(command),
      { ...payload, principal: options.principal, correlationId: options.runId } as never,
      { timeoutMs: options.timeoutMs },
    );
  const written = async (command: CommandName, payload: Record<string, unknown>): Promise<WriteResult> => {
    const reply = await request(command, payload);
    if (isPlanResult(reply))
      throw new CairnError("internal", `${command} answered a plan where a write was expected`);
    return reply;
  };
  return {
    send: (command, payload, idempotencyKey) =>
      written(command, idempotencyKey ? { ...payload, idempotencyKey } : payload),
    async plan(command, payload) {
      const reply = await request(command, { ...payload, dryRun: true });
      if (!isPlanResult(reply))
        throw new CairnError("internal", `${command} wrote instead of answering a plan`);
      return reply;
    },
    execute: (command, payload, token, idempotencyKey) =>
      written(command, { ...payload, token, idempotencyKey }),
  };
}
