// pg, ioredis and HTTP are traced without any flag on `node`: `initTracing` turns the
// instrumentations on and patches the modules this ES-module process imported already (see
// services/lib/telemetry/src/instrument-libraries.ts). Their spans join the active trace,
// carry no values (SQL parameters, Redis arguments, query-string values), and work done
// outside any span records nothing.
import { createServer } from "node:http";
import { getTracer, initTracing, startSpan } from "@cairn/telemetry";
import { infraTest } from "@cairn/testing";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { Redis } from "ioredis";
import pg from "pg";
import { beforeEach, expect } from "vitest";

const exporter = new InMemorySpanExporter();
initTracing({ serviceName: "auto-instrumentation-test", exporters: [exporter] });
const tracer = getTracer("test");

beforeEach(() => exporter.reset());

infraTest(
  "pg and ioredis calls inside a span are its children, without values",
  async ({ databaseUrl, redis }) => {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    pool.on("error", () => {}); // idle clients still closing when the server stops
    const client = new Redis(redis.url);
    try {
      // Outside a span: no trace for background queries.
      await pool.query("select 1");
      await client.ping();
      expect(exporter.getFinishedSpans()).toEqual([]);

      await startSpan(tracer, "work", async () => {
        await pool.query("select $1::text as secret", ["memory text"]);
        await client.set("cairn:test:key", "memory text");
      });
      const spans = exporter.getFinishedSpans();
      const work = spans.find((s) => s.name === "work");
      const query = spans.find((s) => s.name.startsWith("pg.query"));
      const set = spans.find((s) => s.name === "set");
      expect(work && query && set, spans.map((s) => s.name).join(", ")).toBeTruthy();
      for (const child of [query, set]) {
        expect(child?.spanContext().traceId).toBe(work?.spanContext().traceId);
        expect(child?.parentSpanContext?.spanId).toBe(work?.spanContext().spanId);
      }
      expect(JSON.stringify(query?.attributes)).not.toContain("memory text");
      expect(JSON.stringify(set?.attributes)).not.toContain("memory text");
      expect(set?.attributes["db.query.text"]).toBe("set [2 args]");
      expect(query?.attributes["db.query.text"]).toBe("select $1::text as secret");
    } finally {
      await pool.end();
      client.disconnect();
    }
  },
);

infraTest("an HTTP server span continues the caller's trace and hides query values", async () => {
  const server = createServer((_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  try {
    await fetch(`http://127.0.0.1:${port}/v1/memories?q=${encodeURIComponent("what we decided")}&limit=5`);
    await fetch(`http://127.0.0.1:${port}/metrics`);
    await expect.poll(() => exporter.getFinishedSpans().length).toBe(1);
    const [span] = exporter.getFinishedSpans();
    expect(span?.kind).toBe(1); // SERVER
    expect(span?.attributes["url.path"]).toBe("/v1/memories");
    expect(span?.attributes["url.query"]).toBe("q=REDACTED&limit=REDACTED");
  } finally {
    server.close();
  }
});
