import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type Meter, metrics } from "@opentelemetry/api";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";

export type Metrics = {
  /** Serves the Prometheus text format; mount it at `/metrics`. */
  handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** Starts a small HTTP server answering `/metrics` on `port` (0: any free port). */
  listen: (port: number, host?: string) => Promise<{ server: Server; port: number }>;
  shutdown: () => Promise<void>;
};

let active: Metrics | undefined;

/**
 * Sets up OpenTelemetry metrics once per process, read by Prometheus from `/metrics`.
 * Instruments are created with `getMeter()`; names start with `cairn_`.
 */
export function initMetrics(options: { serviceName: string }): Metrics {
  if (active) return active;
  const exporter = new PrometheusExporter({ preventServerStart: true, withoutTargetInfo: false });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    readers: [exporter],
  });
  metrics.setGlobalMeterProvider(provider);
  const servers: Server[] = [];
  const handle = (request: IncomingMessage, response: ServerResponse) =>
    exporter.getMetricsRequestHandler(request, response);
  active = {
    handle,
    listen: (port, host = "0.0.0.0") =>
      new Promise((resolve, reject) => {
        const server = createServer((req, res) => {
          if (req.url?.split("?")[0] === "/metrics") handle(req, res);
          else {
            res.statusCode = 404;
            res.end("not found; metrics are at /metrics\n");
          }
        });
        server.once("error", reject);
        server.listen(port, host, () => {
          servers.push(server);
          const address = server.address();
          resolve({ server, port: typeof address === "object" && address ? address.port : port });
        });
      }),
    shutdown: async () => {
      for (const s of servers) s.close();
      await provider.shutdown();
      metrics.disable();
      active = undefined;
    },
  };
  return active;
}

/** The process's meter (a no-op one until `initMetrics` has run). */
export function getMeter(name = "cairn"): Meter {
  return metrics.getMeter(name);
}

/** Bucket bounds for latencies in seconds (the default bounds suit milliseconds). */
export const secondsBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A latency histogram in seconds, named `cairn_<what>_duration_seconds`. */
export function createSecondsHistogram(meter: Meter, name: string, description: string) {
  return meter.createHistogram(name, {
    description,
    unit: "s",
    advice: { explicitBucketBoundaries: secondsBuckets },
  });
}
