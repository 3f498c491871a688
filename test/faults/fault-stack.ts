// Cairn for the fault suite: Postgres, Redis and NATS from the test fixtures (NATS with the
// bus authenticated, as deployed), and each of the five services as its own process, so any
// one part can be killed with SIGKILL and started again while the others keep running.
import { busCredentialsEnv, connectBus, generateBusAuth } from "@cairn/bus";
import { type ServiceName, serviceNames } from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import { freePort, startNats, startPostgres, startRedis, waitFor } from "@cairn/testing";
import type { NatsConnection } from "@nats-io/nats-core";
import { type ServiceProcess, spawnService } from "../helpers/service-processes.ts";

export const faultParts = ["postgres", "redis", "nats", "ingest", "search", "gateway"] as const;
export type FaultPart = (typeof faultParts)[number];

export type FaultStack = {
  baseUrl: string;
  apiKey: string;
  databaseUrl: string;
  /** The operator's bus connection (the doctor, as `pnpm cairn doctor` asks it). */
  operator: NatsConnection;
  kill: (part: FaultPart) => Promise<void>;
  /** Starts a part again: after kill(), or a service that died by itself. */
  restart: (part: FaultPart | ServiceName) => Promise<void>;
  /** True when the gateway's /readyz answers 200 (every dependency and service answers). */
  ready: () => Promise<boolean>;
  /** Services whose process ended without the suite killing it. */
  exited: () => { name: ServiceName; code: number | string; logs: string[] }[];
  logsOf: (name: ServiceName) => string[];
  stop: () => Promise<void>;
};

const apiKey = "cairn_fault-suite-admin-key-0123456789abcd";

export async function startFaultStack(): Promise<FaultStack> {
  const auth = generateBusAuth();
  const [postgres, redis, nats] = await Promise.all([
    startPostgres(),
    startRedis(),
    startNats({ authorization: auth.config }),
  ]);
  const databaseUrl = postgres.url("postgres");
  await migrateToLatest(databaseUrl);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    CAIRN_DATABASE_URL: databaseUrl,
    CAIRN_REDIS_URL: redis.url,
    CAIRN_NATS_URL: nats.url,
    CAIRN_PORT: String(port),
    CAIRN_ADMIN_KEY: apiKey,
    CAIRN_DEFAULT_TENANT: "faults",
    CAIRN_LOG_LEVEL: "warn",
    // The load is one key's; its rate limit is not what is tested here.
    CAIRN_RATE_LIMIT_PER_MINUTE: "1000000",
    CAIRN_RATE_LIMIT_BURST: "100000",
    CAIRN_MAINTENANCE_SCHEDULER: "0",
  };
  const services = new Map<ServiceName, ServiceProcess>();
  const killed = new Set<ServiceProcess>();
  const spawn = (name: ServiceName) =>
    services.set(name, spawnService(name, { ...env, ...busCredentialsEnv(auth.credentials[name]) }));
  for (const name of serviceNames) spawn(name);
  const operator = await connectBus({
    url: nats.url,
    name: "fault-suite-operator",
    credentials: auth.credentials.admin,
  });

  const ready = async () => {
    try {
      return (await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5000) })).status === 200;
    } catch {
      return false;
    }
  };
  const infrastructure = { postgres, redis, nats };
  const stop = async () => {
    await operator.close().catch(() => undefined);
    await Promise.all([...services.values()].map((s) => s.stop("SIGTERM")));
    await Promise.all([postgres.stop(), redis.stop(), nats.stop()]);
  };
  const stack: FaultStack = {
    baseUrl,
    apiKey,
    databaseUrl,
    operator,
    async kill(part) {
      if (part === "postgres" || part === "redis" || part === "nats") return infrastructure[part].kill();
      const service = services.get(part);
      if (!service) return;
      killed.add(service);
      await service.stop("SIGKILL");
    },
    async restart(part) {
      if (part === "postgres" || part === "redis" || part === "nats") return infrastructure[part].restart();
      spawn(part);
    },
    ready,
    exited: () =>
      [...services.values()]
        .filter((s) => !killed.has(s) && (s.child.exitCode !== null || s.child.signalCode !== null))
        .map((s) => ({
          name: s.name as ServiceName,
          code: s.child.signalCode ?? s.child.exitCode ?? "?",
          logs: s.logs.slice(-20),
        })),
    logsOf: (name) => services.get(name)?.logs ?? [],
    stop,
  };
  try {
    await waitFor(ready, { timeoutMs: 90_000, intervalMs: 300, description: "/readyz answering 200" });
  } catch (error) {
    const logs = [...services.values()].flatMap((s) => s.logs.slice(-10).map((l) => `${s.name}: ${l}`));
    await stop();
    throw new Error(`Cairn did not start:\n${logs.join("\n")}`, { cause: error });
  }
  return stack;
}
