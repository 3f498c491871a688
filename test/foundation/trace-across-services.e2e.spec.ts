// One trace crosses services: the gateway's readiness check asks each backend service for
// its health over NATS, and the W3C trace context in the message headers makes the
// service's span a child of the gateway's, in the same trace.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { migrateToLatest } from "@cairn/event-store";
import { freePort, startNats, startPostgres, startRedis, waitFor } from "@cairn/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ServiceProcess, spawnService } from "../helpers/service-processes.ts";

type SpanLine = { service: string; name: string; traceId: string; spanId: string; parentSpanId?: string };

let infra: { stop: () => Promise<void> }[] = [];
let services: ServiceProcess[] = [];
let traceDir: string;
let port: number;

beforeAll(async () => {
  const [pg, redis, nats] = await Promise.all([startPostgres(), startRedis(), startNats()]);
  infra = [pg, redis, nats];
  await migrateToLatest(pg.url("postgres"));
  traceDir = mkdtempSync(path.join(tmpdir(), "cairn-traces-"));
  port = await freePort();
  const env = {
    CAIRN_DATABASE_URL: pg.url("postgres"),
    CAIRN_REDIS_URL: redis.url,
    CAIRN_NATS_URL: nats.url,
  };
  services = (["ingest", "search", "ranking", "maintenance", "gateway"] as const).map((name) =>
    spawnService(name, {
      ...env,
      CAIRN_PORT: String(port),
      CAIRN_TRACE_FILE: path.join(traceDir, `${name}.jsonl`),
    }),
  );
});

afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()));
  await Promise.all(infra.map((i) => i.stop()));
});

function spans(service: string): SpanLine[] {
  try {
    return readFileSync(path.join(traceDir, `${service}.jsonl`), "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as SpanLine);
  } catch {
    return [];
  }
}

it("puts the gateway's request and the service's handling in one trace", async () => {
  const ready = await waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      return res.status === 200 ? ((await res.json()) as { status: string }) : false;
    },
    { timeoutMs: 30_000, intervalMs: 300, description: "gateway /readyz answering 200" },
  );
  expect(ready.status).toBe("ready");

  const { client, server } = await waitFor(
    () => {
      const server = spans("ingest").find((s) => s.name === "rpc cairn.health.ingest");
      const client = spans("gateway").find(
        (s) => s.name === "rpc cairn.health.ingest" && s.spanId === server?.parentSpanId,
      );
      return client && server ? { client, server } : false;
    },
    { timeoutMs: 10_000, description: "a gateway client span and the ingest server span it caused" },
  );
  expect(server.traceId).toBe(client.traceId);
  expect(server.parentSpanId).toBe(client.spanId);
  expect(client.service).toBe("cairn-gateway");
  expect(server.service).toBe("cairn-ingest");
});
