// The traces a team reads when it asks "where is my write?" and "why was this recall slow?",
// with every service running in this process and an in-memory span exporter.
//
// Write: the gateway's HTTP span → the NATS request to ingest → ingest's handling → the
// event-store append → the `cairn_append` call in Postgres (pg instrumentation) → the relay's
// publish of each event (same trace). Each projection handles the event in a trace of its
// own, linked to the publish, with its RediSearch (ioredis) or pgvector (pg) writes as
// children. Query: the gateway's HTTP span → `search.results` with the wait, lexical, vector
// and fusion stages (candidate counts as attributes), then search's request to
// `ranking.rerank` with its `rerank` span, then the read of the results' documents.
import { relaySubject } from "@cairn/contracts";
import { initTracing } from "@cairn/telemetry";
import { infraTest } from "@cairn/testing";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { beforeEach, expect } from "vitest";
import { type InProcessCairn, startInProcessCairn, tenant } from "../helpers/in-process-cairn.ts";

const exporter = new InMemorySpanExporter();
initTracing({ serviceName: "cairn-observability-test", exporters: [exporter] });

const SERVER = 1;
const CLIENT = 2;
const PRODUCER = 3;
const CONSUMER = 4;

const test = infraTest.extend("cairn", async ({ databaseUrl, redis, nats, uniqueName }, { onCleanup }) => {
  const cairn = await startInProcessCairn({
    databaseUrl,
    redisUrl: redis.url,
    natsUrl: nats.url,
    uniqueName,
  });
  onCleanup(() => cairn.stop());
  return cairn;
});

beforeEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const traceOf = (s: ReadableSpan) => s.spanContext().traceId;
const describeSpans = (list: ReadableSpan[]) =>
  list
    .map(
      (s) =>
        `${s.name} [${traceOf(s).slice(0, 6)} ${idOf(s).slice(0, 6)}<-${s.parentSpanContext?.spanId?.slice(0, 6) ?? "root"}]`,
    )
    .join("\n");

/** The one finished span that matches; fails with the list of spans when there is none. */
function one(predicate: (s: ReadableSpan) => boolean, what: string): ReadableSpan {
  const found = spans().filter(predicate);
  expect(found.length, `${what} in\n${describeSpans(spans())}`).toBeGreaterThan(0);
  return found[0] as ReadableSpan;
}

function childrenOf(parent: ReadableSpan): ReadableSpan[] {
  return spans().filter(
    (s) => s.parentSpanContext?.spanId === idOf(parent) && traceOf(s) === traceOf(parent),
  );
}

/** Whether `ancestor` is on the parent chain of `span`. */
function descends(span: ReadableSpan, ancestor: ReadableSpan): boolean {
  const byId = new Map(spans().map((s) => [idOf(s), s]));
  let current: ReadableSpan | undefined = span;
  while (current?.parentSpanContext) {
    if (current.parentSpanContext.spanId === idOf(ancestor)) return true;
    current = byId.get(current.parentSpanContext.spanId);
  }
  return false;
}

async function created(cairn: InProcessCairn, memory: Record<string, unknown>) {
  const res = await cairn.rest("POST", "/v1/memories", memory);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string; position: number };
}

test("a write is one trace from the gateway to the publish; each projection links to the publish", async ({
  cairn,
}) => {
  const write = await created(cairn, {
    slot: "ops/cache-ttl",
    content: "The cache TTL is 300 seconds in production.",
    keys: ["cache ttl"],
  });

  const projections = [
    "search.lexical",
    "search.vector",
    "ranking.signals",
    "ranking.keys",
    "maintenance.view",
  ];
  await expect
    .poll(() => projections.filter((p) => spans().some((s) => s.name === `project ${p} memory.recorded`)), {
      timeout: 20_000,
    })
    .toEqual(projections);

  // The request: gateway HTTP server span named after its route, with the caller.
  const http = one((s) => s.kind === SERVER && s.name === "POST /v1/memories", "the gateway's HTTP span");
  expect(http.attributes["http.route"]).toBe("/v1/memories");
  expect(http.attributes["cairn.tenant"]).toBe(tenant);
  const trace = traceOf(http);

  // Gateway → ingest over NATS, the server span a child of the client span.
  const client = one(
    (s) => s.kind === CLIENT && s.name === "rpc cairn.ingest.memory.create" && traceOf(s) === trace,
    "the gateway's NATS request",
  );
  expect(descends(client, http)).toBe(true);
  const server = one(
    (s) => s.kind === SERVER && s.name === "rpc cairn.ingest.memory.create" && traceOf(s) === trace,
    "ingest's server span",
  );
  expect(server.parentSpanContext?.spanId).toBe(idOf(client));
  expect(server.attributes["cairn.tenant"]).toBe(tenant);

  // Ingest's handling, the append, and the Postgres call under it.
  const handling = one((s) => s.name === "ingest memory.create" && traceOf(s) === trace, "ingest's handling");
  expect(handling.parentSpanContext?.spanId).toBe(idOf(server));
  const append = one((s) => s.name === "event-store append" && traceOf(s) === trace, "the append");
  expect(descends(append, handling)).toBe(true);
  expect(append.attributes["cairn.event.types"]).toContain("memory.recorded");
  expect(append.attributes["cairn.event.positions"]).toContain(write.position);
  const sql = childrenOf(append).find((s) => String(s.attributes["db.query.text"]).includes("cairn_append"));
  expect(sql, describeSpans(childrenOf(append))).toBeDefined();
  expect(sql?.attributes["db.system.name"]).toBe("postgresql");

  // The relay's publish: a PRODUCER span in the write's trace, child of ingest's handling.
  const publish = one(
    (s) => s.kind === PRODUCER && s.name === "publish memory.recorded" && traceOf(s) === trace,
    "the relay's publish",
  );
  expect(publish.parentSpanContext?.spanId).toBe(idOf(handling));
  const position = publish.attributes["cairn.event.position"];
  expect(append.attributes["cairn.event.positions"]).toContain(position);
  // Published on the relay's subject, in the message of the write's commit.
  expect(publish.attributes["messaging.destination.name"]).toBe(relaySubject);
  expect(publish.attributes["cairn.tenant"]).toBe(tenant);

  // Each projection: a CONSUMER span in a trace of its own, linked to the publish.
  const handled: Record<string, ReadableSpan> = {};
  for (const name of projections) {
    const project = one(
      (s) => s.kind === CONSUMER && s.name === `project ${name} memory.recorded`,
      `the ${name} projection's span`,
    );
    expect(traceOf(project), name).not.toBe(trace);
    expect(project.parentSpanContext, name).toBeUndefined();
    expect(
      project.links.map((l) => l.context.spanId),
      name,
    ).toContain(idOf(publish));
    expect(project.links[0]?.context.traceId, name).toBe(trace);
    expect(project.attributes["cairn.event.position"], name).toBe(position);
    handled[name] = project;
  }

  // Their writes as children: RediSearch (lexical), pgvector (vector), Redis (ranking),
  // Postgres (the maintenance view).
  const writesUnder = (name: string, system: string) =>
    spans().filter(
      (s) =>
        s.kind === CLIENT &&
        s.attributes["db.system.name"] === system &&
        descends(s, handled[name] as ReadableSpan),
    );
  expect(
    writesUnder("search.lexical", "redis").map((s) => s.name),
    "lexical writes",
    // The document and the checkpoint go in one compare-and-set script (FT.ADD or HSET inside).
  ).toEqual(expect.arrayContaining([expect.stringMatching(/^(eval|evalsha|ft\.add|hset)$/i)]));
  const vectorSql = writesUnder("search.vector", "postgresql").map((s) =>
    String(s.attributes["db.query.text"]),
  );
  expect(
    vectorSql.some((q) => /insert|update/i.test(q)),
    vectorSql.join("\n"),
  ).toBe(true);
  expect(writesUnder("ranking.signals", "redis").length, "signals writes").toBeGreaterThan(0);
  expect(writesUnder("ranking.keys", "redis").length, "keys writes").toBeGreaterThan(0);
  const viewSql = writesUnder("maintenance.view", "postgresql").map((s) =>
    String(s.attributes["db.query.text"]),
  );
  expect(
    viewSql.some((q) => /view_rows/i.test(q)),
    viewSql.join("\n"),
  ).toBe(true);
  // No value reached a span: the memory's text is nowhere in the attributes.
  for (const s of spans()) expect(JSON.stringify(s.attributes), s.name).not.toContain("300 seconds");
});

test("a recall is one trace: search stages with candidate counts, then the rerank", async ({ cairn }) => {
  const write = await created(cairn, {
    slot: "ops/cache-ttl",
    content: "The cache TTL is 300 seconds in production.",
    keys: ["cache ttl"],
  });
  await created(cairn, {
    slot: "ops/queue",
    content: "The queue retries a job three times.",
    keys: ["queue"],
  });
  exporter.reset();

  const res = await cairn.rest("GET", `/v1/memories?q=cache%20TTL&afterPosition=${write.position + 1}`);
  expect(res.status, await res.clone().text()).toBe(200);
  const body = (await res.json()) as { results: { document: { id: string } }[] };
  expect(body.results.map((r) => r.document.id)).toContain(write.id);

  const http = one((s) => s.kind === SERVER && s.name === "GET /v1/memories", "the gateway's HTTP span");
  const trace = traceOf(http);
  // The query text is nowhere: not in the URL attributes, not in any span.
  expect(http.attributes["url.query"]).toBe("q=REDACTED&afterPosition=REDACTED");
  for (const s of spans()) expect(JSON.stringify(s.attributes), s.name).not.toMatch(/cache TTL|cache%20TTL/);

  const candidates = one(
    (s) => s.kind === SERVER && s.name === "rpc cairn.search.results" && traceOf(s) === trace,
    "search's server span",
  );
  expect(descends(candidates, http)).toBe(true);
  const stage = (name: string) => {
    const found = one((s) => s.name === `search ${name}` && traceOf(s) === trace, `the ${name} stage`);
    expect(found.parentSpanContext?.spanId, name).toBe(idOf(candidates));
    expect(found.attributes["cairn.stage"]).toBe(name);
    return found;
  };
  stage("wait");
  const lexical = stage("lexical");
  const vector = stage("vector");
  const fusion = stage("fusion");
  expect(lexical.attributes["cairn.candidates.count"]).toBeGreaterThanOrEqual(1);
  expect(vector.attributes["cairn.candidates.count"]).toBeGreaterThanOrEqual(1);
  expect(fusion.attributes["cairn.candidates.lexical"]).toBe(lexical.attributes["cairn.candidates.count"]);
  expect(fusion.attributes["cairn.candidates.vector"]).toBe(vector.attributes["cairn.candidates.count"]);
  expect(fusion.attributes["cairn.candidates.count"]).toBeGreaterThanOrEqual(1);
  // The lexical stage queried RediSearch, the vector stage embedded the query and asked pgvector.
  expect(spans().some((s) => descends(s, lexical) && s.attributes["db.system.name"] === "redis")).toBe(true);
  expect(spans().some((s) => descends(s, vector) && s.name === "embed")).toBe(true);
  expect(spans().some((s) => descends(s, vector) && s.attributes["db.system.name"] === "postgresql")).toBe(
    true,
  );

  const rerankServer = one(
    (s) => s.kind === SERVER && s.name === "rpc cairn.ranking.rerank" && traceOf(s) === trace,
    "ranking's server span",
  );
  // Search asked ranking, within its own request.
  expect(descends(rerankServer, candidates)).toBe(true);
  const rerank = one((s) => s.name === "rerank" && traceOf(s) === trace, "the rerank span");
  expect(rerank.parentSpanContext?.spanId).toBe(idOf(rerankServer));
  expect(rerank.attributes["cairn.candidates.count"]).toBe(fusion.attributes["cairn.candidates.count"]);
  expect(rerank.attributes["cairn.results.count"]).toBeGreaterThanOrEqual(1);
  // The rerank came after the candidates were fused.
  const nanos = (t: [number, number]) => t[0] * 1e9 + t[1];
  expect(nanos(rerankServer.startTime)).toBeGreaterThanOrEqual(nanos(fusion.endTime));
  // Then only the results' documents were read, after the rerank, and no other request was made.
  const documents = one((s) => s.name === "redis documents" && traceOf(s) === trace, "the documents read");
  expect(descends(documents, candidates)).toBe(true);
  expect(nanos(documents.startTime)).toBeGreaterThanOrEqual(nanos(rerankServer.endTime));
  const requests = spans().filter(
    (s) => s.kind === SERVER && /^rpc cairn\.(search|ranking)\./.test(s.name) && traceOf(s) === trace,
  );
  expect(requests.map((s) => s.name).sort()).toEqual([
    "rpc cairn.ranking.expand",
    "rpc cairn.ranking.rerank",
    "rpc cairn.search.results",
  ]);
});
