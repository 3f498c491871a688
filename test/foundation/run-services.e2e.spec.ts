// What `pnpm start` runs: all five services, their logs prefixed by name; the gateway's
// /readyz answers 200 with each dependency's state; Ctrl-C (SIGINT) leaves no process behind.
import { execFileSync } from "node:child_process";
import { migrateToLatest } from "@cairn/event-store";
import { freePort, startNats, startPostgres, startRedis, waitFor } from "@cairn/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { isAlive, type ServiceProcess, spawnAllServices } from "../helpers/service-processes.ts";

let infra: { stop: () => Promise<void> }[] = [];
let all: ServiceProcess;
let port: number;

beforeAll(async () => {
  const [pg, redis, nats] = await Promise.all([startPostgres(), startRedis(), startNats()]);
  infra = [pg, redis, nats];
  await migrateToLatest(pg.url("postgres"));
  port = await freePort();
  all = spawnAllServices({
    CAIRN_DATABASE_URL: pg.url("postgres"),
    CAIRN_REDIS_URL: redis.url,
    CAIRN_NATS_URL: nats.url,
    CAIRN_PORT: String(port),
  });
});

afterAll(async () => {
  await all?.stop("SIGKILL");
  await Promise.all(infra.map((i) => i.stop()));
});

function childPids(pid: number): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

it("starts all five services, reports readiness, and stops cleanly on Ctrl-C", async () => {
  const body = await waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      return res.status === 200
        ? ((await res.json()) as { status: string; checks: Record<string, { ok: boolean }> })
        : false;
    },
    { timeoutMs: 40_000, intervalMs: 300, description: "/readyz answering 200" },
  );
  expect(body.status).toBe("ready");
  for (const dep of ["postgres", "redis", "nats", "ingest", "search", "ranking", "maintenance"]) {
    expect(body.checks[dep]?.ok, dep).toBe(true);
  }
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  expect(health.status).toBe(200);

  for (const name of ["ingest", "search", "ranking", "maintenance", "gateway"]) {
    expect(
      all.logs.some((l) => l.startsWith(name) && l.includes("service started")),
      name,
    ).toBe(true);
  }

  const pids = childPids(all.child.pid as number);
  expect(pids).toHaveLength(5);
  const code = await all.stop("SIGINT");
  expect(code).toBe(0);
  await waitFor(() => pids.every((pid) => !isAlive(pid)), {
    timeoutMs: 5000,
    description: "every service exited",
  });
});
