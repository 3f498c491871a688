// Maintenance talks to ingest like any client: commands over NATS with the tenant's
// maintenance principal, the run id as correlation id (so a run's effects can be found in
// the log), and an idempotency key per step (so a retried request writes nothing twice).
import { requestRpc } from "@cairn/bus";
import type { PlanResult, Principal, WriteResult } from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";

export type IngestClient = {
  /** A one-step command. */
  send(command: string, payload: Record<string, unknown>, idempotencyKey?: string): Promise<WriteResult>;
  /** The dry run of a two-step command: its plan and token. Changes nothing. */
  plan(command: string, payload: Record<string, unknown>): Promise<PlanResult>;
  /** Executes a two-step command with a token from its dry run. */
  execute(
    command: string,
    payload: Record<string, unknown>,
    token: string,
    idempotencyKey: string,
  ): Promise<WriteResult>;
};

export function createIngestClient(
  nc: NatsConnection,
  options: { principal: Principal; runId: string; timeoutMs: number },
): IngestClient {
  const request = <T>(command: string, payload: Record<string, unknown>) =>
    requestRpc<T>(
      nc,
      `cairn.ingest.${command}`,
      { ...payload, principal: options.principal, correlationId: options.runId },
      { timeoutMs: options.timeoutMs },
    );
  return {
    send: (command, payload, idempotencyKey) =>
      request<WriteResult>(command, idempotencyKey ? { ...payload, idempotencyKey } : payload),
    plan: (command, payload) => request<PlanResult>(command, { ...payload, dryRun: true }),
    execute: (command, payload, token, idempotencyKey) =>
      request<WriteResult>(command, { ...payload, token, idempotencyKey }),
  };
}
