// Cairn as `./scripts/start` runs it, with the bus authenticated: the credentials written the
// way infra/local/infra.sh writes them, NATS with their authorization block, and
// `scripts/run-services.ts` giving each service its own identity (CAIRN_NATS_AUTH_DIR). Writes,
// searches, reads, a maintenance run, the doctor and the CLI as the operator all work, and the
// server refused nothing any of them did. Then a service killed with SIGKILL is started
// again by the runner while the others keep serving.
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { busSeedFile, writeBusAuthFiles } from "@cairn/bus";
import { migrateToLatest } from "@cairn/event-store";
import { freePort, type NatsHandle, startNats, startPostgres, startRedis, waitFor } from "@cairn/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRequest } from "../helpers/gateway-client.ts";
import { isAlive, repoRoot, type ServiceProcess, spawnAllServices } from "../helpers/service-processes.ts";

const run = promisify(execFile);
const adminKey = "cairn_auth-e2e-admin-key-0123456789abcdefgh";

let infra: { stop: () => Promise<void> }[] = [];
let nats: NatsHandle;
let all: ServiceProcess;
let authDir: string;
let baseUrl: string;
let env: Record<string, string>;

const rest = (method: string, path: string, body?: unknown) =>
  restRequest(baseUrl, adminKey, { method, path, ...(body === undefined ? {} : { body }) });

async function ready(): Promise<void> {
  await waitFor(async () => (await fetch(`${baseUrl}/readyz`).catch(() => undefined))?.status === 200, {
    timeoutMs: 60_000,
    intervalMs: 300,
    description: "/readyz answering 200",
  });
}

/** The runner's children: pid and the service each runs. */
function servicePids(): Map<string, number> {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(all.child.pid)], { encoding: "utf8" });
  const pids = new Map<string, number>();
  for (const line of out.split("\n")) {
    const match = /^\s*(\d+)\s.*services\/(\w+)\/src\/main\.ts/.exec(line);
    if (match) pids.set(match[2] as string, Number(match[1]));
  }
  return pids;
}

async function violations(): Promise<string[]> {
  const log = await readFile(nats.logFile, "utf8").catch(() => "");
  return log.split("\n").filter((line) => /violation/i.test(line));
}

beforeAll(async () => {
  authDir = await mkdtemp(join(tmpdir(), "cairn-bus-auth-"));
  const { configFile } = await writeBusAuthFiles(authDir);
  const [pg, redis] = await Promise.all([startPostgres(), startRedis()]);
  nats = await startNats({ authorization: await readFile(configFile, "utf8") });
  infra = [pg, redis, nats];
  await migrateToLatest(pg.url("postgres"));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = {
    CAIRN_DATABASE_URL: pg.url("postgres"),
    CAIRN_REDIS_URL: redis.url,
    CAIRN_NATS_URL: nats.url,
    CAIRN_PORT: String(port),
    CAIRN_ADMIN_KEY: adminKey,
    CAIRN_DEFAULT_TENANT: "acme",
  };
  all = spawnAllServices({ ...env, CAIRN_NATS_AUTH_DIR: authDir });
  try {
    await ready();
  } catch (error) {
    throw new Error(`Cairn did not start:\n${all.logs.slice(-40).join("\n")}`, { cause: error });
  }
});

afterAll(async () => {
  await all?.stop("SIGTERM");
  await Promise.all(infra.map((i) => i.stop()));
  if (authDir) await rm(authDir, { recursive: true, force: true });
});

describe("Cairn on an authenticated bus", () => {
  it("connects every service with its own identity", () => {
    for (const name of ["ingest", "search", "ranking", "maintenance", "gateway"]) {
      const line = all.logs.find((l) => l.startsWith(name) && l.includes("with bus credentials"));
      expect(line, name).toContain(`"identity":"${name}"`);
    }
  });

  it("writes, searches and reads through every service, and runs maintenance and the doctor", async () => {
    const created = await rest("POST", "/v1/memories", {
      slot: "bus/auth",
      content: "The bus refuses clients without credentials.",
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id, position } = (await created.json()) as { id: string; position: number };

    const found = await rest("GET", `/v1/memories?q=credentials&afterPosition=${position}`);
    expect(found.status).toBe(200);
    expect(JSON.stringify(await found.json())).toContain(id);
    const read = await rest("GET", `/v1/memories/${id}`);
    expect(read.status).toBe(200);

    const dryRun = await rest("POST", "/v1/maintenance/runs", { job: "dedup" });
    expect(dryRun.status, await dryRun.clone().text()).toBe(200);
    const doctor = await rest("GET", "/v1/maintenance/doctor?full=true");
    expect(doctor.status).toBe(200);
    const report = (await doctor.json()) as { findings: { code: string }[] };
    expect(report.findings.filter((f) => f.code === "unavailable")).toEqual([]);
  });

  it("lets the CLI work as the operator", async () => {
    const { stdout } = await run(process.execPath, ["scripts/cairn.ts", "doctor", "--format", "json"], {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...env,
        CAIRN_NATS_USER: "admin",
        CAIRN_NATS_NKEY_SEED_FILE: busSeedFile(authDir, "admin"),
      },
    });
    const report = JSON.parse(stdout) as { projections: unknown[]; consumers: unknown[] };
    expect(report.projections.length).toBeGreaterThan(0);
    expect(report.consumers.length).toBeGreaterThan(0);
  });

  it("was refused nothing it needed", async () => {
    expect(await violations()).toEqual([]);
  });
});

describe("scripts/run-services.ts", () => {
  it("starts a service that died again, while the others keep running", async () => {
    const before = servicePids();
    const search = before.get("search");
    expect(search).toBeDefined();
    process.kill(search as number, "SIGKILL");
    await waitFor(() => !isAlive(search as number), { timeoutMs: 5000, description: "search gone" });

    const after = await waitFor(
      () => {
        const pids = servicePids();
        const again = pids.get("search");
        return again !== undefined && again !== search ? pids : false;
      },
      { timeoutMs: 30_000, intervalMs: 200, description: "search started again" },
    );
    for (const name of ["ingest", "ranking", "maintenance", "gateway"]) {
      expect(after.get(name), name).toBe(before.get(name));
    }
    expect(all.logs.some((l) => l.startsWith("search") && l.includes("starting it again"))).toBe(true);
    await ready();
    const found = await rest("GET", "/v1/memories?q=credentials&consistency=strong");
    expect(found.status).toBe(200);
    expect(all.child.exitCode).toBeNull();
  });

  it("stops every service on SIGINT", async () => {
    const pids = [...servicePids().values()];
    expect(pids).toHaveLength(5);
    expect(await all.stop("SIGINT")).toBe(0);
    await waitFor(() => pids.every((pid) => !isAlive(pid)), { timeoutMs: 5000, description: "all exited" });
  });
});
