// All five Cairn services in this test process, each a real service (startService) on the
// worker's real Postgres, Redis and NATS, with a fresh database and event stream per test, and
// the gateway's HTTP server on a free port. One process means one tracer provider and one
// meter provider: a test that set up tracing with an in-memory exporter sees every span.
import { connectBus, ensureEventStream } from "@cairn/bus";
import { eventStreamName } from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import { type ServiceHandle, startService } from "@cairn/service-runtime";
import { jetstreamManager } from "@nats-io/jetstream";
import { createGatewayService } from "../../services/gateway/src/gateway-service.ts";
import { ingestService } from "../../services/ingest/src/ingest-service.ts";
import { createMaintenanceService } from "../../services/maintenance/src/maintenance-service.ts";
import { createRankingService } from "../../services/ranking/src/ranking-service.ts";
import { searchEnvSchema } from "../../services/search/src/env.ts";
import { startSearch } from "../../services/search/src/search-service.ts";

export const adminKey = "cairn_observability-admin-key-0123456789";
export const tenant = "acme";

export type InProcessCairn = {
  baseUrl: string;
  /** A REST call with the admin key. */
  rest: (method: string, path: string, body?: unknown) => Promise<Response>;
  stop: () => Promise<void>;
};

export async function startInProcessCairn(infra: {
  databaseUrl: string;
  redisUrl: string;
  natsUrl: string;
  uniqueName: string;
  env?: Record<string, string>;
}): Promise<InProcessCairn> {
  await migrateToLatest(infra.databaseUrl);
  // A fresh event stream: the worker's NATS is shared by the tests it runs one after another.
  const nc = await connectBus({ url: infra.natsUrl, name: `setup-${infra.uniqueName}` });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(eventStreamName).catch(() => false);
  await ensureEventStream(jsm);
  await nc.close();
  const env: Record<string, string> = {
    CAIRN_DATABASE_URL: infra.databaseUrl,
    CAIRN_REDIS_URL: infra.redisUrl,
    CAIRN_NATS_URL: infra.natsUrl,
    CAIRN_LOG_LEVEL: process.env.CAIRN_TEST_LOG ?? "silent",
    CAIRN_METRICS_PORT: "off",
    CAIRN_REDIS_PREFIX: `${infra.uniqueName}:`,
    CAIRN_SEARCH_CONSUMER_PREFIX: `s-${infra.uniqueName}`,
    CAIRN_RANKING_REDIS_PREFIX: `${infra.uniqueName}:ranking:`,
    CAIRN_RANKING_CONSUMER_PREFIX: `r-${infra.uniqueName}`,
    CAIRN_MAINTENANCE_SCHEDULER: "0",
    CAIRN_HOST: "127.0.0.1",
    CAIRN_PORT: "0",
    CAIRN_MODE: "local",
    CAIRN_ADMIN_KEY: adminKey,
    CAIRN_DEFAULT_TENANT: tenant,
    CAIRN_KEY_CACHE_MS: "0",
    // Off, as in search's own tests: the projections' writes are then the consumers' (children
    // of their linked spans). The periodic catch-up (every 5 s by default) could otherwise
    // apply a fresh event from the log first, outside any consumer span.
    CAIRN_SEARCH_CATCH_UP_MS: "0",
    ...infra.env,
  };
  const handles: ServiceHandle[] = [];
  let baseUrl = "";
  try {
    handles.push(await startService(ingestService, env));
    handles.push(
      await startService({ name: "search", envSchema: searchEnvSchema, start: startSearch() }, env),
    );
    handles.push(await startService(createRankingService(), env));
    handles.push(await startService(createMaintenanceService(), env));
    handles.push(
      await startService(
        createGatewayService({
          onListening: (address) => {
            baseUrl = address;
          },
        }),
        env,
      ),
    );
  } catch (error) {
    for (const h of handles.reverse()) await h.stop().catch(() => undefined);
    throw error;
  }
  return {
    baseUrl,
    rest: (method, path, body) =>
      fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminKey}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    async stop() {
      for (const h of handles.reverse()) await h.stop().catch(() => undefined);
    },
  };
}
