// Test support: the search service started in this process against real Postgres, Redis and
// NATS, and a client that asks it the way the gateway and ranking do.
import { call } from "@cairn/bus";
import {
  type CandidatesReply,
  type CandidatesRequest,
  type CountReply,
  type CountRequest,
  type GetMemoryReply,
  type GetMemoryRequest,
  type HistoryReply,
  type HistoryRequest,
  type ResultsReply,
  type ResultsRequest,
  type SearchStatusReply,
  type SearchStatusRequest,
  searchRpcs,
} from "@cairn/contracts";
import { createDatabasePool, migrateToLatest } from "@cairn/event-store";
import { createTestLog, freshEventStream, type TestLog } from "@cairn/projection-runtime/testing";
import { type ServiceHandle, startService } from "@cairn/service-runtime";
import { waitFor } from "@cairn/testing";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import type pg from "pg";
import type { Embedder } from "../embedders/embedder.ts";
import { createSearchService } from "../search-service.ts";

export type SearchInfra = { databaseUrl: string; redisUrl: string; natsUrl: string; redisPrefix: string };

export type SearchUnderTest = {
  service: ServiceHandle;
  client: NatsConnection;
  pool: pg.Pool;
  log: TestLog;
  env: Record<string, string>;
  candidates(request: CandidatesRequest): Promise<CandidatesReply>;
  results(request: ResultsRequest): Promise<ResultsReply>;
  count(request: CountRequest): Promise<CountReply>;
  get(request: GetMemoryRequest): Promise<GetMemoryReply>;
  history(request: HistoryRequest): Promise<HistoryReply>;
  status(request?: SearchStatusRequest): Promise<SearchStatusReply>;
  /** Waits until both projections have applied everything in the log. */
  settle(timeoutMs?: number): Promise<number>;
  /** Stops the service only (the client, pool and log stay usable). */
  stopService(): Promise<void>;
  /** Starts the service again with the same settings (plus overrides). */
  restartService(overrides?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
};

export type StartSearchOptions = {
  env?: Record<string, string>;
  embedder?: Embedder;
  /** Keep the event stream of an earlier start (default: a fresh one). */
  keepStream?: boolean;
};

export function searchEnv(infra: SearchInfra, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CAIRN_DATABASE_URL: infra.databaseUrl,
    CAIRN_REDIS_URL: infra.redisUrl,
    CAIRN_NATS_URL: infra.natsUrl,
    CAIRN_REDIS_PREFIX: infra.redisPrefix,
    CAIRN_LOG_LEVEL: "silent",
    CAIRN_METRICS_PORT: "off",
    CAIRN_SEARCH_RETRY_BASE_MS: "50",
    CAIRN_SEARCH_RETRY_MAX_MS: "500",
    // Off: tests see what the consumers do; the periodic catch-up has its own test.
    CAIRN_SEARCH_CATCH_UP_MS: "0",
    ...extra,
  };
}

export async function startSearchUnderTest(
  infra: SearchInfra,
  options: StartSearchOptions = {},
): Promise<SearchUnderTest> {
  await migrateToLatest(infra.databaseUrl);
  const client = await connect({ servers: infra.natsUrl, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  if (!options.keepStream) await freshEventStream(client);
  const pool = createDatabasePool({ connectionString: infra.databaseUrl, max: 4 });
  const env = searchEnv(infra, options.env);
  const definition = () => createSearchService(options.embedder ? { embedder: options.embedder } : {});
  let service: ServiceHandle | undefined = await startService(definition(), env);
  const log = await createTestLog({ pool, nc: client });
  const timeout = { timeoutMs: 20_000 };

  const under: SearchUnderTest = {
    get service() {
      if (!service) throw new Error("the search service is stopped");
      return service;
    },
    client,
    pool,
    log,
    env,
    candidates: (req) => call(client, searchRpcs.candidates, req, timeout),
    results: (req) => call(client, searchRpcs.results, req, timeout),
    count: (req) => call(client, searchRpcs.count, req, timeout),
    get: (req) => call(client, searchRpcs.get, req, timeout),
    history: (req) => call(client, searchRpcs.history, req, timeout),
    status: (req = {}) => call(client, searchRpcs.status, req, timeout),
    async settle(timeoutMs = 15_000) {
      const last = await log.lastPosition();
      // The service may still be reconnecting to NATS (no responder yet): ask again.
      await waitFor(() => under.status({ afterPosition: last, waitTimeoutMs: Math.min(timeoutMs, 5000) }), {
        timeoutMs,
        intervalMs: 100,
        description: `both projections to reach position ${last}`,
      });
      return last;
    },
    async stopService() {
      await service?.stop();
      service = undefined;
    },
    async restartService(overrides = {}) {
      await service?.stop();
      Object.assign(env, overrides);
      service = await startService(definition(), env);
    },
    async stop() {
      await service?.stop();
      await client.close();
      await pool.end();
    },
  };
  return under;
}
