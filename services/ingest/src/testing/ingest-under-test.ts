// Test support: the ingest service started in this process against a real Postgres database
// and NATS server, a client that sends commands the way the gateway does, and what the tests
// read back: a memory's document from the log, a command's refusal.
import { call } from "@cairn/bus";
import {
  CairnError,
  type CommandName,
  commandRpc,
  type ErrorCode,
  type MemoryDocument,
  openSealedEvents,
  type PlanResult,
  type Principal,
  type RpcDefinition,
  streamIdFor,
  type WriteResult,
} from "@cairn/contracts";
import {
  createDatabasePool,
  createEventStore,
  createMemorySealStore,
  type EventStore,
  migrateToLatest,
} from "@cairn/event-store";
import { type ServiceHandle, startService } from "@cairn/service-runtime";
import { infraTest } from "@cairn/testing";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import type pg from "pg";
import { expect } from "vitest";
import { foldStream } from "../commands/command-context.ts";
import { createIngestService } from "../ingest-service.ts";

export type IngestUnderTest = {
  service: ServiceHandle;
  client: NatsConnection;
  pool: pg.Pool;
  store: EventStore;
  send<T = WriteResult>(name: CommandName, payload: Record<string, unknown>): Promise<T>;
  plan(name: CommandName, payload: Record<string, unknown>): Promise<PlanResult>;
  /** A two-step command as an agent runs it: the dry run, then the write with its token. */
  twoStep(name: CommandName, payload: Record<string, unknown>): Promise<WriteResult>;
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
  const send = <T = WriteResult>(name: CommandName, payload: Record<string, unknown>) =>
    call(client, commandRpc(name) as RpcDefinition, payload, { timeoutMs: 15_000 }) as Promise<T>;
  const plan = (name: CommandName, payload: Record<string, unknown>) =>
    send<PlanResult>(name, { ...payload, dryRun: true });
  return {
    service,
    client,
    pool,
    store,
    send,
    plan,
    async twoStep(name, payload) {
      const { token } = await plan(name, payload);
      return send(name, { ...payload, token });
    },
    async stop() {
      await client.close();
      await service.stop();
      await pool.end();
    },
  };
}

/** A test with an ingest service of its own, on the test's Postgres database and NATS server. */
export const ingestTest = infraTest.extend("ingest", async ({ databaseUrl, nats }, { onCleanup }) => {
  const ingest = await startIngestUnderTest(databaseUrl, nats.url);
  onCleanup(() => ingest.stop());
  return ingest;
});

/** A memory's current document, folded from its stream in the log. */
export async function documentOf(ingest: IngestUnderTest, id: string): Promise<MemoryDocument> {
  // The log holds memory text sealed; open it with the memory's seal.
  const events = await ingest.store.readStream(streamIdFor("memory", id));
  const state = foldStream(await openSealedEvents(events, createMemorySealStore(ingest.pool)));
  if (!state.exists) throw new Error(`no memory ${id}`);
  return state.doc;
}

/** The error a refused command answers with; fails when the command is not refused. */
export async function refusal(promise: Promise<unknown>): Promise<CairnError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error("expected the command to be refused");
}

/** The refusal of a command, which must carry `code`. */
export async function refusedWith(code: ErrorCode, promise: Promise<unknown>): Promise<CairnError> {
  const error = await refusal(promise);
  expect(error.code).toBe(code);
  return error;
}
