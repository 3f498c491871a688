import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  type BatchObservableCallback,
  type Counter,
  type Gauge,
  type Histogram,
  type Meter,
  type MetricAttributes,
  type MetricOptions,
  metrics,
  type Observable,
  type ObservableCallback,
  type UpDownCounter,
} from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, type MetricReader, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";

export type Metrics = {
  /** Serves the Prometheus text format; mount it at `/metrics`. */
  handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** Starts a small HTTP server answering `/metrics` on `port` (0: any free port). */
  listen: (port: number, host?: string) => Promise<{ server: Server; port: number }>;
  /** Closes this user's servers; the provider stops with its last user. */
  shutdown: () => Promise<void>;
};

export type MetricsOptions = { serviceName: string; env?: NodeJS.ProcessEnv };

type ActiveMetrics = {
  provider: MeterProvider;
  exporter: PrometheusExporter;
  users: number;
};

let active: ActiveMetrics | undefined;

// ---------------------------------------------------------------------------------------------
// Instruments that outlive the provider. The API hands out no-op instruments while no meter
// provider is set, and modules create theirs when they are imported, before a service sets
// metrics up: without this indirection such a counter would count nothing for the life of
// the process. Each instrument made through `getMeter()` is re-created on the provider of
// the moment whenever one is set (and observable callbacks are registered on it again).

type Rebindable = { bind(meter: Meter): void };
const instruments = new Map<string, Rebindable & { proxy: unknown }>();

function realMeter(name: string): Meter {
  return metrics.getMeter(name);
}

function rebindAll(): void {
  for (const [key, instrument] of instruments) instrument.bind(realMeter(key.split("\u0000")[0] as string));
}

function cached<T>(meterName: string, kind: string, name: string, make: () => Rebindable & { proxy: T }): T {
  const key = `${meterName}\u0000${kind}\u0000${name}`;
  let instrument = instruments.get(key);
  if (!instrument) {
    instrument = make();
    instruments.set(key, instrument);
  }
  return instrument.proxy as T;
}

function syncInstrument<T>(
  meterName: string,
  kind: string,
  name: string,
  create: (meter: Meter) => T,
  wrap: (current: () => T) => T,
): T {
  return cached(meterName, kind, name, () => {
    let real = create(realMeter(meterName));
    return {
      bind: (meter) => {
        real = create(meter);
      },
      proxy: wrap(() => real),
    };
  });
}

function observableInstrument(
  meterName: string,
  kind: string,
  name: string,
  create: (meter: Meter) => Observable,
): Observable {
  return cached(meterName, kind, name, () => {
    const callbacks = new Set<ObservableCallback>();
    let real = create(realMeter(meterName));
    const proxy: Observable = {
      addCallback(callback) {
        callbacks.add(callback as ObservableCallback);
        real.addCallback(callback);
      },
      removeCallback(callback) {
        callbacks.delete(callback as ObservableCallback);
        real.removeCallback(callback);
      },
    };
    return {
      bind: (meter) => {
        real = create(meter);
        for (const callback of callbacks) real.addCallback(callback);
      },
      proxy,
    };
  });
}

class RebindingMeter implements Meter {
  readonly #name: string;
  constructor(name: string) {
    this.#name = name;
  }
  createCounter<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Counter<A> {
    return syncInstrument(
      this.#name,
      "counter",
      name,
      (m) => m.createCounter<A>(name, options),
      (c) => ({ add: (...args) => c().add(...args) }),
    );
  }
  createUpDownCounter<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): UpDownCounter<A> {
    return syncInstrument(
      this.#name,
      "updown",
      name,
      (m) => m.createUpDownCounter<A>(name, options),
      (c) => ({ add: (...args) => c().add(...args) }),
    );
  }
  createHistogram<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Histogram<A> {
    return syncInstrument(
      this.#name,
      "histogram",
      name,
      (m) => m.createHistogram<A>(name, options),
      (h) => ({ record: (...args) => h().record(...args) }),
    );
  }
  createGauge<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Gauge<A> {
    return syncInstrument(
      this.#name,
      "gauge",
      name,
      (m) => m.createGauge<A>(name, options),
      (g) => ({ record: (...args) => g().record(...args) }),
    );
  }
  createObservableGauge<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Observable<A> {
    return observableInstrument(this.#name, "ogauge", name, (m) =>
      m.createObservableGauge(name, options),
    ) as Observable<A>;
  }
  createObservableCounter<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Observable<A> {
    return observableInstrument(this.#name, "ocounter", name, (m) =>
      m.createObservableCounter(name, options),
    ) as Observable<A>;
  }
  createObservableUpDownCounter<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Observable<A> {
    return observableInstrument(this.#name, "oupdown", name, (m) =>
      m.createObservableUpDownCounter(name, options),
    ) as Observable<A>;
  }
  // Batch callbacks go to the provider of the moment (Cairn does not use them).
  addBatchObservableCallback<A extends MetricAttributes = MetricAttributes>(
    callback: BatchObservableCallback<A>,
    observables: Observable<A>[],
  ): void {
    realMeter(this.#name).addBatchObservableCallback(callback, observables);
  }
  removeBatchObservableCallback<A extends MetricAttributes = MetricAttributes>(
    callback: BatchObservableCallback<A>,
    observables: Observable<A>[],
  ): void {
    realMeter(this.#name).removeBatchObservableCallback(callback, observables);
  }
}

const meters = new Map<string, Meter>();

/**
 * The meter for `name`. Its instruments may be created at any time, before metrics are set
 * up included: they count on whichever provider `initMetrics` has set.
 */
export function getMeter(name = "cairn"): Meter {
  let meter = meters.get(name);
  if (!meter) {
    meter = new RebindingMeter(name);
    meters.set(name, meter);
  }
  return meter;
}

// ---------------------------------------------------------------------------------------------

/**
 * Readers besides Prometheus: `OTEL_METRICS_EXPORTER` lists exporters (`prometheus`, the
 * default, is always on; `otlp` also pushes to `OTEL_EXPORTER_OTLP_ENDPOINT` every
 * `OTEL_METRIC_EXPORT_INTERVAL` ms, default 15000).
 */
function pushReaders(env: NodeJS.ProcessEnv): MetricReader[] {
  const wanted = (env.OTEL_METRICS_EXPORTER ?? "prometheus").split(",").map((s) => s.trim());
  if (!wanted.includes("otlp") || !env.OTEL_EXPORTER_OTLP_ENDPOINT) return [];
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 15_000);
  return [
    new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter(),
      exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 15_000,
    }),
  ];
}

/**
 * Sets up OpenTelemetry metrics for the process, read by Prometheus from `/metrics`.
 * Instruments are created with `getMeter()`; names start with `cairn_`. Services started in
 * one process (tests) share the provider; it stops when the last of them stops.
 */
export function initMetrics(options: MetricsOptions): Metrics {
  if (!active) {
    const exporter = new PrometheusExporter({ preventServerStart: true, withoutTargetInfo: false });
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
      readers: [exporter, ...pushReaders(options.env ?? process.env)],
    });
    metrics.setGlobalMeterProvider(provider);
    rebindAll();
    active = { provider, exporter, users: 0 };
  }
  const current = active;
  current.users += 1;
  const servers: Server[] = [];
  const handle = (request: IncomingMessage, response: ServerResponse) =>
    current.exporter.getMetricsRequestHandler(request, response);
  let stopped = false;
  return {
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
      if (stopped) return;
      stopped = true;
      await Promise.all(
        servers.map(
          (server) =>
            new Promise((resolve) => {
              server.close(resolve);
              server.closeAllConnections();
            }),
        ),
      );
      current.users -= 1;
      if (current.users > 0 || active !== current) return;
      active = undefined;
      await current.provider.shutdown();
      metrics.disable();
      rebindAll();
    },
  };
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

/**
 * Recall latency by stage, one histogram for the whole recall: search records `wait`,
 * `lexical`, `embed`, `vector` and `fusion`, ranking records `rerank`.
 */
export function recallStageHistogram() {
  return createSecondsHistogram(
    getMeter(),
    "cairn_search_stage_duration_seconds",
    "Recall latency by stage (wait, lexical, embed, vector, fusion, rerank)",
  );
}
