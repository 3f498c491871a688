// Cairn's services in the test process, each a real service (startService) on the worker's
// real Postgres, Redis and NATS, with a fresh event stream per test. One place for the settings
// every suite that runs the services in-process shares (prefixes unique to the test, no
// metrics ports, quiet logs), and for starting any set of the five.
import { connectBus, ensureEventStream } from "@cairn/bus";
import { eventStreamName, type ServiceName } from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import { createGatewayService, type GatewayServiceOptions } from "@cairn/gateway";
import { createIngestService } from "@cairn/ingest";
import { createMaintenanceService, type MaintenanceServiceOptions } from "@cairn/maintenance";
import { createRankingService, type RankingServiceOptions } from "@cairn/ranking";
import { createSearchService, type SearchServiceOptions } from "@cairn/search";
import { type ServiceHandle, startService } from "@cairn/service-runtime";
import { jetstreamManager } from "@nats-io/jetstream";

export type TestInfra = { databaseUrl: string; redisUrl: string; natsUrl: string; uniqueName: string };

/** The environment of services under test: the infrastructure, names unique to the test. */
export function testServiceEnv(infra: TestInfra, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CAIRN_DATABASE_URL: infra.databaseUrl,
    CAIRN_REDIS_URL: infra.redisUrl,
    CAIRN_NATS_URL: infra.natsUrl,
    CAIRN_LOG_LEVEL: process.env.CAIRN_TEST_LOG ?? "silent",
    CAIRN_METRICS_PORT: "off",
    CAIRN_REDIS_PREFIX: `${infra.uniqueName}:`,
    CAIRN_SEARCH_CONSUMER_PREFIX: `s-${infra.uniqueName}`,
    CAIRN_RANKING_REDIS_PREFIX: `${infra.uniqueName}:ranking:`,
    CAIRN_RANKING_CONSUMER_PREFIX: `r-${infra.uniqueName}`,
    CAIRN_MAINTENANCE_CONSUMER_PREFIX: `m-${infra.uniqueName}`,
    CAIRN_MAINTENANCE_SCHEDULER: "0",
    CAIRN_GATEWAY_REDIS_PREFIX: `${infra.uniqueName}:gateway:`,
    ...extra,
  };
}

/** Migrations and a fresh event stream (the worker's NATS is shared by the tests it runs). */
export async function prepareInfra(infra: TestInfra): Promise<void> {
  await migrateToLatest(infra.databaseUrl);
  const nc = await connectBus({ url: infra.natsUrl, name: `setup-${infra.uniqueName}` });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(eventStreamName).catch(() => false);
    await ensureEventStream(jsm);
  } finally {
    await nc.close();
  }
}

export type ServiceOptions = {
  search?: SearchServiceOptions;
  ranking?: RankingServiceOptions;
  maintenance?: MaintenanceServiceOptions;
  gateway?: GatewayServiceOptions;
  /** Settings for one service only (on top of the shared ones). */
  envOf?: Partial<Record<ServiceName, Record<string, string>>>;
};

/** Starts the named services, in the order given; stops those started if one fails. */
export async function startServices(
  env: Record<string, string>,
  names: readonly ServiceName[],
  options: ServiceOptions = {},
): Promise<ServiceHandle[]> {
  const handles: ServiceHandle[] = [];
  try {
    for (const name of names) {
      const own = { ...env, ...options.envOf?.[name] };
      const handle =
        name === "ingest"
          ? await startService(createIngestService(), own)
          : name === "search"
            ? await startService(createSearchService(options.search), own)
            : name === "ranking"
              ? await startService(createRankingService(options.ranking), own)
              : name === "maintenance"
                ? await startService(createMaintenanceService(options.maintenance), own)
                : await startService(createGatewayService(options.gateway), own);
      handles.push(handle);
    }
    return handles;
  } catch (error) {
    await stopServices(handles);
    throw error;
  }
}

export async function stopServices(handles: readonly ServiceHandle[]): Promise<void> {
  for (const h of [...handles].reverse()) await h.stop().catch(() => undefined);
}
