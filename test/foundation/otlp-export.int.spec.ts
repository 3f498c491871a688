// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans go out over OTLP/HTTP (to the collector in
// compose); with OTEL_METRICS_EXPORTER=otlp as well, metrics are pushed there too.
import { createServer } from "node:http";
import { getMeter, getTracer, initMetrics, initTracing, startSpan } from "@cairn/telemetry";
import { expect, it } from "vitest";

it("exports spans and, when asked, metrics to the OTLP endpoint", async () => {
  const received: { path: string; bytes: number }[] = [];
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", bytes });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const env = {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_METRICS_EXPORTER: "prometheus,otlp",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
  };
  // The OTLP exporters read the endpoint from the process environment.
  Object.assign(process.env, env);
  const tracing = initTracing({ serviceName: "otlp-test", env, instrumentLibraries: false });
  const metrics = initMetrics({ serviceName: "otlp-test", env });
  try {
    await startSpan(getTracer("test"), "exported", () => undefined);
    getMeter().createCounter("cairn_otlp_probe").add(1);
    await tracing.provider.forceFlush();
    await expect
      .poll(() => received.map((r) => r.path).sort(), { timeout: 5000 })
      .toEqual(expect.arrayContaining(["/v1/metrics", "/v1/traces"]));
    expect(received.every((r) => r.bytes > 0)).toBe(true);
  } finally {
    await metrics.shutdown();
    await tracing.shutdown();
    server.close();
  }
});
