// What the gateway suites start: their own Postgres, Redis and NATS with a fresh migrated
// database and event stream, and (for suites that test the gateway as it is deployed, its
// settings read from the environment) the gateway service itself with the services it needs,
// in local mode with a known admin key.
import type { ServiceName } from "@cairn/contracts";
import {
  type GatewayHarness,
  type HarnessOptions,
  type KeyName,
  startGatewayHarness,
} from "@cairn/gateway/testing";
import type { ServiceHandle } from "@cairn/service-runtime";
import { restRequest } from "../helpers/gateway-client.ts";
import {
  prepareInfra,
  startServices,
  stopServices,
  type TestInfra,
  testServiceEnv,
} from "../helpers/in-process-services.ts";
import { type Infrastructure, startInfrastructure } from "../helpers/start-infrastructure.ts";

export type SuiteInfrastructure = { infrastructure: Infrastructure; infra: TestInfra };

/** Infrastructure for one suite; `name` names its database and everything it keeps in them. */
export async function startSuiteInfrastructure(name: string): Promise<SuiteInfrastructure> {
  const infrastructure = await startInfrastructure();
  const { postgres, redis, nats } = infrastructure;
  await postgres.createDatabase(name);
  const infra = { databaseUrl: postgres.url(name), redisUrl: redis.url, natsUrl: nats.url, uniqueName: name };
  await prepareInfra(infra);
  return { infrastructure, infra };
}

export type GatewayStack = SuiteInfrastructure & {
  /** The environment every service of the stack was started with. */
  env: Record<string, string>;
  baseUrl: string;
  /** The services started, the gateway last. */
  services: ServiceHandle[];
  stop: () => Promise<void>;
};

export async function startGatewayStack(options: {
  name: string;
  adminKey: string;
  /** Started before the gateway, in this order. */
  services: readonly ServiceName[];
  /** Gateway settings on top of the shared ones. */
  env?: Record<string, string>;
}): Promise<GatewayStack> {
  const suite = await startSuiteInfrastructure(options.name);
  const env = testServiceEnv(suite.infra, {
    CAIRN_HOST: "127.0.0.1",
    CAIRN_PORT: "0",
    CAIRN_MODE: "local",
    CAIRN_ADMIN_KEY: options.adminKey,
    CAIRN_DEFAULT_TENANT: "acme",
    ...options.env,
  });
  let baseUrl = "";
  let services: ServiceHandle[] = [];
  try {
    services = await startServices(env, [...options.services, "gateway"], {
      gateway: {
        onListening: (address) => {
          baseUrl = address;
        },
      },
    });
  } catch (error) {
    await suite.infrastructure.stop();
    throw error;
  }
  return {
    ...suite,
    env,
    baseUrl,
    services,
    stop: async () => {
      await stopServices(services);
      await suite.infrastructure.stop();
    },
  };
}

export type HarnessSuite = SuiteInfrastructure & {
  /** The gateway harness (a small team's keys), on ingest and search. */
  gw: GatewayHarness;
  /** The services behind it (ingest, search), to stop one for an outage. */
  services: ServiceHandle[];
  /** A REST call with one of the team's keys. */
  rest: (
    key: KeyName,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => Promise<Response>;
  stop: () => Promise<void>;
};

/** The gateway harness with the team's keys, on real ingest and search services. */
export async function startHarnessSuite(
  name: string,
  harness: Omit<HarnessOptions, "databaseUrl" | "natsUrl"> = {},
): Promise<HarnessSuite> {
  const suite = await startSuiteInfrastructure(name);
  let services: ServiceHandle[] = [];
  try {
    services = await startServices(testServiceEnv(suite.infra), ["ingest", "search"]);
    const gw = await startGatewayHarness({
      databaseUrl: suite.infra.databaseUrl,
      natsUrl: suite.infra.natsUrl,
      ...harness,
    });
    return {
      ...suite,
      gw,
      services,
      rest: (key, method, path, body, headers) =>
        restRequest(gw.baseUrl, gw.keys[key], { method, path, body, headers }),
      stop: async () => {
        await gw.close();
        await stopServices(services);
        await suite.infrastructure.stop();
      },
    };
  } catch (error) {
    await stopServices(services);
    await suite.infrastructure.stop();
    throw error;
  }
}
