// One trace crosses services: the gateway's readiness check asks each backend service for
// its health over NATS, and the W3C trace context in the message headers makes the
// service's span a child of the gateway's, in the same trace. And in these plain
// `node services/<x>/src/main.ts` processes (no loader flag), pg, ioredis and HTTP are traced
// too: a write's spans, from the gateway's HTTP span to the projections', are in the files.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { migrateToLatest } from "@cairn/event-store";
import { freePort, startNats, startPostgres, startRedis, waitFor } from "@cairn/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ServiceProcess, spawnService } from "../helpers/service-processes.ts";

type SpanLine = {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, unknown>;
};

const adminKey = "cairn_trace-e2e-admin-key-0123456789abcdef";

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
      CAIRN_ADMIN_KEY: adminKey,
      CAIRN_DEFAULT_TENANT: "acme",
      CAIRN_TRACE_FILE: path.join(traceDir, `${name}.jsonl`),
    }),
  );
});

afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()));
  await Promise.all(infra.map((i) => i.stop()));
  if (traceDir) rmSync(traceDir, { recursive: true, force: true });
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

it("traces a write through pg, the relay and the projections' Redis writes, across processes", async () => {
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, {
    timeoutMs: 30_000,
    intervalMs: 300,
    description: "gateway /readyz answering 200",
  });
  const res = await fetch(`http://127.0.0.1:${port}/v1/memories`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ slot: "ops/trace", content: "Traces cross every process." }),
  });
  expect(res.status, await res.clone().text()).toBe(201);

  const http = await waitFor(
    () => spans("gateway").find((s) => s.name === "POST /v1/memories" && s.kind === 1) ?? false,
    { timeoutMs: 10_000, description: "the gateway's HTTP server span" },
  );
  const append = await waitFor(
    () => spans("ingest").find((s) => s.name === "event-store append" && s.traceId === http.traceId) ?? false,
    { timeoutMs: 10_000, description: "ingest's append in the request's trace" },
  );
  const sql = spans("ingest").filter((s) => s.parentSpanId === append.spanId);
  expect(sql.map((s) => String(s.attributes["db.query.text"]))).toContainEqual(
    expect.stringContaining("cairn_append"),
  );
  const publish = await waitFor(
    () =>
      spans("ingest").find((s) => s.name === "publish memory.recorded" && s.traceId === http.traceId) ??
      false,
    { timeoutMs: 10_000, description: "the relay's publish in the request's trace" },
  );
  const project = await waitFor(
    () =>
      spans("search").find(
        (s) =>
          s.name === "project search.lexical memory.recorded" &&
          s.links.some((l) => l.spanId === publish.spanId),
      ) ?? false,
    { timeoutMs: 20_000, description: "search's lexical projection linked to the publish" },
  );
  expect(project.traceId).not.toBe(http.traceId);
  expect(
    spans("search").some(
      (s) => s.parentSpanId === project.spanId && s.attributes["db.system.name"] === "redis",
    ),
  ).toBe(true);
});
