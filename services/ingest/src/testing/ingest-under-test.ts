// Test support: the ingest service started in this process against a real Postgres database
// and NATS server, and a client that sends commands the way the gateway does.
import { call } from "@cairn/bus";
import {
  type CommandName,
  commandRpc,
  type PlanResult,
  type Principal,
  type RpcDefinition,
  type WriteResult,
} from "@cairn/contracts";
import { createDatabasePool, createEventStore, type EventStore, migrateToLatest } from "@cairn/event-store";
import { type ServiceHandle, startService } from "@cairn/service-runtime";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import type pg from "pg";
import { createIngestService } from "../ingest-service.ts";

export type IngestUnderTest = {
  service: ServiceHandle;
  client: NatsConnection;
  pool: pg.Pool;
  store: EventStore;
  send<T = WriteResult>(name: CommandName, payload: Record<string, unknown>): Promise<T>;
  plan(name: CommandName, payload: Record<string, unknown>): Promise<PlanResult>;
  stop(): Promise<void>;
};

export const alice: Principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };
export const bob: Principal = { tenant: "acme", agent: "bob", role: "agent", primary: false };
export const reviewer: Principal = { tenant: "acme", agent: "rita", role: "reviewer", primary: false };
export const admin: Principal = { tenant: "acme", agent: "ada", role: "admin", primary: true };
export const outsider: Principal = { tenant: "globex", agent: "olga", role: "agent", primary: false };

export async function startIngestUnderTest(
  databaseUrl: string,
  natsUrl: string,
  env: Record<string, string> = {},
): Promise<IngestUnderTest> {
  await migrateToLatest(databaseUrl);
  const service = await startService(createIngestService(), {
    CAIRN_DATABASE_URL: databaseUrl,
    CAIRN_NATS_URL: natsUrl,
    CAIRN_LOG_LEVEL: "silent",
    // Several test workers run ingest at once: no fixed metrics port.
    CAIRN_METRICS_PORT: "off",
    ...env,
  });
  const client = await connect({ servers: natsUrl });
  const pool = createDatabasePool({ connectionString: databaseUrl, max: 4 });
  const store = createEventStore(pool);
  return {
    service,
    client,
    pool,
    store,
    send: <T>(name: CommandName, payload: Record<string, unknown>) =>
      call(client, commandRpc(name) as RpcDefinition, payload, { timeoutMs: 15_000 }) as Promise<T>,
    plan: (name, payload) =>
      call(
        client,
        commandRpc(name) as RpcDefinition,
        { ...payload, dryRun: true },
        { timeoutMs: 15_000 },
      ) as Promise<PlanResult>,
    async stop() {
      await client.close();
      await service.stop();
      await pool.end();
    },
  };
}
