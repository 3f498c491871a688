// Starts Cairn as `pnpm start` does (all five services as processes) on fresh test
// infrastructure with the migrations applied, and gives the e2e suites API keys made with
// `pnpm cairn keys create`.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { migrateToLatest } from "@cairn/event-store";
import { freePort, waitFor } from "@cairn/testing";
import { repoRoot, type ServiceProcess, spawnAllServices } from "../helpers/service-processes.ts";
import { startInfrastructure } from "../helpers/start-infrastructure.ts";

const run = promisify(execFile);

export const adminKey = "cairn_e2e-admin-key-0123456789abcdefghij";

export type Principal = {
  tenant: string;
  agent: string;
  role?: "agent" | "reviewer" | "admin";
  primary?: boolean;
};

export type CairnDeployment = {
  baseUrl: string;
  env: Record<string, string>;
  services: ServiceProcess;
  /** Whether ingest and search answer their subjects (false while they are not built). */
  createKey: (p: Principal) => Promise<{ key: string; id: string }>;
  cli: (args: string[], extraEnv?: Record<string, string>) => Promise<{ stdout: string; stderr: string }>;
  stop: () => Promise<void>;
};

export async function startCairn(extraEnv: Record<string, string> = {}): Promise<CairnDeployment> {
  const infrastructure = await startInfrastructure();
  const databaseUrl = infrastructure.postgres.url("postgres");
  await migrateToLatest(databaseUrl);
  const port = await freePort();
  const env = {
    CAIRN_DATABASE_URL: databaseUrl,
    CAIRN_REDIS_URL: infrastructure.redis.url,
    CAIRN_NATS_URL: infrastructure.nats.url,
    CAIRN_PORT: String(port),
    CAIRN_ADMIN_KEY: adminKey,
    CAIRN_DEFAULT_TENANT: "acme",
    CAIRN_KEY_CACHE_MS: "0",
    ...extraEnv,
  };
  const services = spawnAllServices(env);
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await services.stop("SIGTERM");
    await infrastructure.stop();
  };
  try {
    await waitFor(async () => (await fetch(`${baseUrl}/healthz`)).ok, {
      timeoutMs: 60_000,
      intervalMs: 300,
      description: "the gateway answering /healthz",
    });
    // Services that are up answer; wait for /readyz so every responder is subscribed.
    await waitFor(async () => (await fetch(`${baseUrl}/readyz`)).ok, {
      timeoutMs: 60_000,
      intervalMs: 300,
      description: "/readyz answering 200",
    });
  } catch (error) {
    const logs = services.logs.slice(-40).join("\n");
    await stop();
    throw new Error(`Cairn did not start:\n${logs}`, { cause: error });
  }
  const cli = async (args: string[], more: Record<string, string> = {}) =>
    run(process.execPath, ["scripts/cairn.ts", ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env, ...more },
    });
  return {
    baseUrl,
    env,
    services,
    cli,
    async createKey(p) {
      const { stdout } = await cli([
        "keys",
        "create",
        "--tenant",
        p.tenant,
        "--agent",
        p.agent,
        "--role",
        p.role ?? "agent",
        ...(p.primary ? ["--primary"] : []),
        "--json",
      ]);
      const created = JSON.parse(stdout) as { key: string; record: { id: string } };
      return { key: created.key, id: created.record.id };
    },
    stop,
  };
}
