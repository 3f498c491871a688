// The metrics as Prometheus reads them, from Cairn run as `pnpm start` runs it (five service
// processes, each serving `/metrics`: the gateway on its own HTTP port, the others on a
// metrics port each), with search embedding through an OpenAI-compatible server so the
// embedding cache is in play. After a burst of writes, queries, MCP tool calls and a
// maintenance run, the counters and histograms have moved; every metric the Grafana
// dashboard queries is one these processes really export; and their log lines hold no
// memory text.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeEmbeddingsServer, startFakeEmbeddingsServer } from "@cairn/search/testing";
import { waitFor } from "@cairn/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { adminKey, type CairnDeployment, startCairn } from "../e2e/gateway-harness.ts";
import {
  dashboardExpressions,
  metricNamesIn,
  parsePrometheusText,
  type Sample,
  total,
} from "../helpers/prometheus-text.ts";
import { repoRoot } from "../helpers/service-processes.ts";

const backends = ["ingest", "search", "ranking", "maintenance"] as const;
type Scrape = Record<(typeof backends)[number] | "gateway", Sample[]>;

let cairn: CairnDeployment;
let embeddings: FakeEmbeddingsServer;

beforeAll(async () => {
  embeddings = await startFakeEmbeddingsServer();
  cairn = await startCairn({
    CAIRN_EMBEDDER: "openai",
    CAIRN_EMBEDDING_URL: embeddings.baseUrl,
    CAIRN_EMBEDDING_MODEL: "fake-embed",
    CAIRN_MAINTENANCE_SCHEDULER: "0",
  });
}, 180_000);

afterAll(async () => {
  await cairn?.stop();
  await embeddings?.close();
});

/** Where each backend serves `/metrics`: the port it logged (`CAIRN_METRICS_PORT=0`). */
function metricsPorts(): Record<(typeof backends)[number], number> {
  const ports = {} as Record<(typeof backends)[number], number>;
  for (const line of cairn.services.logs) {
    const match = /^(\w+)\s*\| (\{.*\})$/.exec(line);
    if (!match) continue;
    const entry = JSON.parse(match[2] as string) as { msg?: string; port?: number };
    const service = match[1] as (typeof backends)[number];
    if (entry.msg === "metrics served at /metrics" && backends.includes(service) && entry.port) {
      ports[service] = entry.port;
    }
  }
  return ports;
}

async function scrape(): Promise<Scrape> {
  const ports = metricsPorts();
  const read = async (url: string) => {
    const res = await fetch(url);
    expect(res.status, url).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    return parsePrometheusText(await res.text());
  };
  const out = { gateway: await read(`${cairn.baseUrl}/metrics`) } as Scrape;
  for (const service of backends) {
    expect(ports[service], `${service} logged its metrics port`).toBeGreaterThan(0);
    out[service] = await read(`http://127.0.0.1:${ports[service]}/metrics`);
  }
  return out;
}

async function rest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return fetch(`${cairn.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

it("after a burst of writes and queries the counters and histograms have moved", async () => {
  const before = await scrape();

  // Writes over REST.
  const written: { id: string; position: number }[] = [];
  for (let i = 0; i < 8; i += 1) {
    const res = await rest("POST", "/v1/memories", {
      slot: `burst/${i}`,
      content: `Burst memory ${i}: the deploy window for service ${i} is Tuesday ${i + 1} pm.`,
      keys: [`service ${i}`, "deploy window"],
    });
    expect(res.status, await res.clone().text()).toBe(201);
    written.push((await res.json()) as { id: string; position: number });
  }
  // Both read models have the eight before the revision: folded with its creation, the
  // revision would be embedded with it, once.
  const settled = await rest("GET", "/v1/memories?q=burst&consistency=strong&mode=hybrid");
  expect(settled.status, await settled.clone().text()).toBe(200);
  // A revision and its undoing: the second embeds a text seen before, served by the cache.
  const first = written[0] as { id: string };
  const original = "Burst memory 0: the deploy window for service 0 is Tuesday 1 pm.";
  const revised = await rest(
    "PATCH",
    `/v1/memories/${first.id}`,
    { content: "Burst memory 0: the deploy window moved to Wednesday." },
    { "If-Match": '"1"' },
  );
  expect(revised.status, await revised.clone().text()).toBe(200);
  // Projected (embedded) before it is undone: folded together, the two would embed nothing.
  // A search with strong consistency waits until both read models have applied the revision.
  const found = await rest("GET", "/v1/memories?q=Wednesday&consistency=strong&mode=hybrid");
  expect(found.status, await found.clone().text()).toBe(200);
  const embedded = total((await scrape()).search, "cairn_embedding_texts_total", { use: "documents" });
  expect(embedded - total(before.search, "cairn_embedding_texts_total", { use: "documents" })).toBe(9);
  const patched = await rest(
    "PATCH",
    `/v1/memories/${first.id}`,
    { content: original },
    { "If-Match": '"2"' },
  );
  expect(patched.status, await patched.clone().text()).toBe(200);
  const last = (await patched.json()) as { position: number };

  // Queries over REST (they wait for the writes), one of them with nothing to find.
  for (const q of ["deploy window", "service 3", "Tuesday", "nothing like this at all"]) {
    const res = await rest("GET", `/v1/memories?q=${encodeURIComponent(q)}&afterPosition=${last.position}`);
    expect(res.status, await res.clone().text()).toBe(200);
  }
  // A 404 and a refused request count as errors per route.
  expect((await rest("GET", "/v1/memories/00000000-0000-4000-8000-000000000000")).status).toBe(404);
  expect((await fetch(`${cairn.baseUrl}/v1/memories`, { method: "GET" })).status).toBe(401);

  // MCP tool calls: one that works, one that fails.
  const transport = new StreamableHTTPClientTransport(new URL(`${cairn.baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${adminKey}` } },
  });
  const client = new Client({ name: "metrics-e2e", version: "1.0.0" });
  await client.connect(transport);
  try {
    const found = await client.callTool({ name: "memory_search", arguments: { query: "deploy window" } });
    expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
    const missing = await client.callTool({
      name: "memory_read",
      arguments: { id: "00000000-0000-4000-8000-000000000000" },
    });
    expect(missing.isError).toBe(true);
  } finally {
    await client.close();
  }

  // A maintenance run with something to do: a workflow memory is due for verification.
  const workflow = await rest("POST", "/v1/memories", {
    slot: "burst/release-checklist",
    kind: "workflow",
    content: "Tag, build, publish, announce.",
  });
  expect(workflow.status, await workflow.clone().text()).toBe(201);
  const run = await rest("POST", "/v1/maintenance/runs", { job: "verification", apply: true });
  expect(run.status, await run.clone().text()).toBe(200);

  // Projections current: lag back to zero on every projection, and nothing left to relay (the
  // gateway's recall records arrive up to a batch window after the reads that made them).
  const after = await waitFor(
    async () => {
      const scraped = await scrape();
      const lag = scraped.search
        .concat(scraped.ranking, scraped.maintenance)
        .filter((s) => s.name === "cairn_projection_lag_events");
      const projections = new Set(lag.map((s) => s.labels.projection));
      const backlog = scraped.ingest.find((s) => s.name === "cairn_relay_backlog_events")?.value;
      return projections.size === 5 && lag.every((s) => s.value === 0) && backlog === 0 ? scraped : false;
    },
    {
      timeoutMs: 30_000,
      intervalMs: 500,
      description: "five projections reporting no lag, an empty relay backlog",
    },
  );

  const moved = (service: keyof Scrape, name: string, where: Record<string, string> = {}) =>
    total(after[service], name, where) - total(before[service], name, where);

  // Writes: appended events by type, the relay's backlog reported by the active relay.
  expect(moved("ingest", "cairn_events_appended_total", { type: "memory.recorded" })).toBe(9);
  expect(moved("ingest", "cairn_events_appended_total", { type: "memory.revised" })).toBe(2);
  expect(after.ingest.find((s) => s.name === "cairn_relay_backlog_events")?.value).toBe(0);
  // Requests between services, as their servers saw them.
  expect(
    moved("ingest", "cairn_rpc_server_duration_seconds_count", { subject: "cairn.ingest.memory.create" }),
  ).toBe(9);
  // A recall asks search for its final results, and search asks ranking to re-rank them.
  expect(
    moved("search", "cairn_rpc_server_duration_seconds_count", { subject: "cairn.search.results" }),
  ).toBeGreaterThanOrEqual(7);
  expect(
    moved("ranking", "cairn_rpc_server_duration_seconds_count", { subject: "cairn.ranking.rerank" }),
  ).toBeGreaterThanOrEqual(4);

  // The gateway: requests per route and status, latency, MCP tools.
  expect(moved("gateway", "cairn_http_requests_total", { route: "/v1/memories", status: "201" })).toBe(9);
  expect(moved("gateway", "cairn_http_requests_total", { route: "/v1/memories", status: "200" })).toBe(6);
  expect(moved("gateway", "cairn_http_requests_total", { route: "/v1/memories/:id", status: "404" })).toBe(1);
  expect(moved("gateway", "cairn_http_requests_total", { route: "/v1/memories", status: "401" })).toBe(1);
  expect(
    moved("gateway", "cairn_http_request_duration_seconds_count", { route: "/v1/memories", status: "201" }),
  ).toBe(9);
  expect(
    moved("gateway", "cairn_http_request_duration_seconds_bucket", { route: "/v1/memories", le: "+Inf" }),
  ).toBe(16);
  expect(moved("gateway", "cairn_mcp_tool_calls_total", { tool: "memory_search", outcome: "ok" })).toBe(1);
  expect(
    moved("gateway", "cairn_mcp_tool_calls_total", {
      tool: "memory_read",
      outcome: "error",
      code: "not_found",
    }),
  ).toBe(1);
  expect(moved("gateway", "cairn_mcp_tool_duration_seconds_count", { tool: "memory_search" })).toBe(1);

  // Recall stages: search's and ranking's, in one histogram.
  for (const stage of ["wait", "lexical", "embed", "vector", "fusion"]) {
    expect(
      moved("search", "cairn_search_stage_duration_seconds_count", { stage }),
      stage,
    ).toBeGreaterThanOrEqual(5);
  }
  expect(
    moved("ranking", "cairn_search_stage_duration_seconds_count", { stage: "rerank" }),
  ).toBeGreaterThanOrEqual(4);

  // Embeddings: the model was called for documents and queries; the caches served the revision
  // (documents) and the repeated query (the MCP search asked what a REST search had asked).
  expect(
    moved("search", "cairn_embedding_requests_total", { use: "documents", outcome: "ok" }),
  ).toBeGreaterThan(0);
  expect(moved("search", "cairn_embedding_requests_total", { use: "queries", outcome: "ok" })).toBe(6);
  expect(moved("search", "cairn_embedding_texts_total", { use: "documents" })).toBeGreaterThanOrEqual(8);
  expect(
    moved("search", "cairn_embedding_cache_hits_total", { tier: "memory" }) +
      moved("search", "cairn_embedding_cache_hits_total", { tier: "postgres" }),
  ).toBeGreaterThanOrEqual(1);
  expect(moved("search", "cairn_embedding_cache_hits_total", { tier: "query" })).toBeGreaterThanOrEqual(1);
  expect(moved("search", "cairn_embedding_cache_misses_total", { tier: "query" })).toBe(6);
  expect(moved("search", "cairn_embedding_duration_seconds_count", { use: "queries" })).toBe(6);

  // Projections: lag series for each, redeliveries and dead letters shown (zero here).
  for (const [service, projection] of [
    ["search", "search.lexical"],
    ["search", "search.vector"],
    ["ranking", "ranking.signals"],
    ["ranking", "ranking.keys"],
    ["maintenance", "maintenance.view"],
  ] as const) {
    for (const name of [
      "cairn_projection_lag_seconds",
      "cairn_consumer_redeliveries_total",
      "cairn_dead_letters_total",
    ]) {
      expect(
        after[service].some((s) => s.name === name && s.labels.projection === projection),
        `${service} ${name} ${projection}`,
      ).toBe(true);
    }
  }

  // Maintenance.
  expect(
    moved("maintenance", "cairn_maintenance_job_runs_total", { job: "verification", outcome: "ok" }),
  ).toBe(1);
  expect(moved("maintenance", "cairn_maintenance_job_duration_seconds_count", { job: "verification" })).toBe(
    1,
  );

  // Only Cairn's own names: the instrumentations' metrics stay off.
  for (const [service, samples] of Object.entries(after)) {
    const foreign = [...new Set(samples.map((s) => s.name))].filter(
      (n) => !n.startsWith("cairn_") && n !== "target_info",
    );
    expect(foreign, service).toEqual([]);
  }

  // The dashboard: valid JSON whose every query names a metric these processes export.
  const dashboard = JSON.parse(
    readFileSync(join(repoRoot, "infra/compose/grafana/dashboards/cairn.json"), "utf8"),
  );
  const exported = new Set(Object.values(after).flatMap((samples) => samples.map((s) => s.name)));
  const expressions = dashboardExpressions(dashboard);
  expect(expressions.length).toBeGreaterThan(10);
  for (const { panel, expr } of expressions) {
    const names = metricNamesIn(expr);
    expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0);
    for (const name of names) expect(exported, `${panel}: ${name}`).toContain(name);
  }
  // And the list the compose check reads names exactly what is exported.
  const listed = JSON.parse(
    readFileSync(join(repoRoot, "infra/compose/grafana/metric-names.json"), "utf8"),
  ) as {
    counters: string[];
    gauges: string[];
    histograms: string[];
  };
  for (const name of [...listed.counters, ...listed.gauges]) expect(exported, name).toContain(name);
  for (const name of listed.histograms) expect(exported, name).toContain(`${name}_bucket`);

  // The services' log lines (info level): JSON, never the memories' text or the queries, and a
  // line written inside a request names its trace, span and tenant.
  const lines = cairn.services.logs
    .map((line) => /^\w+\s*\| (\{.*\})$/.exec(line)?.[1])
    .filter((json): json is string => json !== undefined)
    .map((json) => JSON.parse(json) as Record<string, unknown>);
  expect(lines.length).toBeGreaterThan(10);
  const text = JSON.stringify(lines);
  for (const secret of ["deploy window", "Tag, build, publish", "Wednesday", "nothing like this at all"])
    expect(text).not.toContain(secret);
  const started = lines.find((l) => l.msg === "maintenance run started");
  expect(started).toMatchObject({ service: "maintenance", tenant: "acme", job: "verification" });
  expect(started?.trace_id).toMatch(/^[0-9a-f]{32}$/);
  expect(started?.span_id).toMatch(/^[0-9a-f]{16}$/);
}, 180_000);
