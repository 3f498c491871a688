// All five Cairn services in this test process, each a real service (startService) on the
// worker's real Postgres, Redis and NATS, with a fresh database and event stream per test, and
// the gateway's HTTP server on a free port. One process means one tracer provider and one
// meter provider: a test that set up tracing with an in-memory exporter sees every span.
import {
  prepareInfra,
  startServices,
  stopServices,
  type TestInfra,
  testServiceEnv,
} from "./in-process-services.ts";

export const adminKey = "cairn_observability-admin-key-0123456789";
export const tenant = "acme";

export type InProcessCairn = {
  baseUrl: string;
  /** A REST call with the admin key. */
  rest: (method: string, path: string, body?: unknown) => Promise<Response>;
  stop: () => Promise<void>;
};

export async function startInProcessCairn(
  infra: TestInfra & { env?: Record<string, string> },
): Promise<InProcessCairn> {
  await prepareInfra(infra);
  const env = testServiceEnv(infra, {
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
  });
  let baseUrl = "";
  const handles = await startServices(env, ["ingest", "search", "ranking", "maintenance", "gateway"], {
    gateway: {
      onListening: (address) => {
        baseUrl = address;
      },
    },
  });
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
    stop: () => stopServices(handles),
  };
}
