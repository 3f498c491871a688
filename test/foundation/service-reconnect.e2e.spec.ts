// The services outlive their infrastructure: each of Postgres, Redis and NATS is killed
// with SIGKILL and restarted, and the service's health reports the outage and then the
// recovery, without restarting the service.
import { call, connectBus } from "@cairn/bus";
import { healthRpc } from "@cairn/contracts";
import { startNats, startPostgres, startRedis, waitFor } from "@cairn/testing";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServiceProcess, spawnService } from "../helpers/service-processes.ts";

describe("a service survives its infrastructure being killed and restarted", () => {
  let pg: Awaited<ReturnType<typeof startPostgres>>;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let nats: Awaited<ReturnType<typeof startNats>>;
  let service: ServiceProcess;
  let nc: NatsConnection;

  const health = () => call(nc, healthRpc("search"), {}, { timeoutMs: 3000 });
  const dependencyOk = async (dep: string, ok: boolean) =>
    waitFor(
      async () => {
        const reply = await health();
        expect(reply.dependencies[dep]?.ok).toBe(ok);
        return reply;
      },
      { timeoutMs: 20_000, intervalMs: 200, description: `${dep} reported ${ok ? "up" : "down"}` },
    );

  beforeAll(async () => {
    [pg, redis, nats] = await Promise.all([startPostgres(), startRedis(), startNats()]);
    service = spawnService("search", {
      CAIRN_DATABASE_URL: pg.url("postgres"),
      CAIRN_REDIS_URL: redis.url,
      CAIRN_NATS_URL: nats.url,
    });
    nc = await connectBus({ url: nats.url, name: "reconnect-test" });
    await dependencyOk("postgres", true);
  });

  afterAll(async () => {
    await nc?.close();
    await service?.stop();
    await Promise.all([pg?.stop(), redis?.stop(), nats?.stop()]);
  });

  it("answers health with every dependency up", async () => {
    const reply = await health();
    expect(reply.service).toBe("search");
    expect(reply.ok).toBe(true);
    expect(Object.keys(reply.dependencies).sort()).toEqual(["nats", "postgres", "redis"]);
  });

  it("reports Postgres down after kill -9 and up again after a restart", async () => {
    await pg.kill();
    const down = await dependencyOk("postgres", false);
    expect(down.ok).toBe(false);
    await pg.restart();
    const up = await dependencyOk("postgres", true);
    expect(up.ok).toBe(true);
  });

  it("reports Redis down after kill -9 and up again after a restart", async () => {
    await redis.kill();
    await dependencyOk("redis", false);
    await redis.restart();
    const up = await dependencyOk("redis", true);
    expect(up.ok).toBe(true);
  });

  it("reconnects to NATS after it is killed and restarted, and answers requests again", async () => {
    await nats.kill();
    await expect(health()).rejects.toThrow();
    await nats.restart();
    const reply = await waitFor(() => health(), {
      timeoutMs: 20_000,
      intervalMs: 250,
      description: "search answering health after NATS restarted",
    });
    expect(reply.ok).toBe(true);
    expect(service.child.exitCode).toBeNull();
    expect(service.logs.some((l) => l.includes("nats reconnected"))).toBe(true);
  });
});
