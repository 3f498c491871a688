import { appendFileSync } from "node:fs";
import {
  type Attributes,
  context,
  isSpanContextValid,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { type ExportResult, ExportResultCode, suppressTracing } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { instrumentLibraries } from "./instrument-libraries.ts";
import { extractTraceContext, type TraceCarrier } from "./propagation.ts";

export type TracingOptions = {
  serviceName: string;
  /** Extra exporters (tests pass an InMemorySpanExporter); exported synchronously. */
  exporters?: SpanExporter[];
  env?: NodeJS.ProcessEnv;
  /** Auto-instrumentation of pg, ioredis and HTTP (default on; see instrument-libraries.ts). */
  instrumentLibraries?: boolean;
};

export type Tracing = { provider: NodeTracerProvider; shutdown: () => Promise<void> };

/**
 * Writes finished spans as JSON lines to a file. Used when `CAIRN_TRACE_FILE` is set so
 * that tests which run services as real processes can read their traces.
 */
export class JsonLinesSpanExporter implements SpanExporter {
  readonly #path: string;
  constructor(path: string) {
    this.#path = path;
  }
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      const lines = spans.map((s) =>
        JSON.stringify({
          service: s.resource.attributes[ATTR_SERVICE_NAME],
          name: s.name,
          kind: s.kind,
          traceId: s.spanContext().traceId,
          spanId: s.spanContext().spanId,
          parentSpanId: s.parentSpanContext?.spanId,
          links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
          attributes: s.attributes,
          status: s.status,
          start: s.startTime,
          end: s.endTime,
        }),
      );
      if (lines.length > 0) appendFileSync(this.#path, `${lines.join("\n")}\n`);
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }
  async shutdown(): Promise<void> {}
}

let active: Tracing | undefined;

/**
 * Sets up tracing once per process: W3C trace context, async-local context, pg/ioredis/HTTP
 * auto-instrumentation, and export over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set
 * (off otherwise) and to a JSON-lines file when `CAIRN_TRACE_FILE` is set.
 *
 * With nowhere to export to, no span is recorded: spans still carry their trace context (log
 * lines name their `trace_id`, and messages pass it on), but none is built only to be dropped.
 * A service that exports nothing does not sample, so the services it calls see its requests
 * as unsampled: give every service the same exporter.
 */
export function initTracing(options: TracingOptions): Tracing {
  if (active) return active;
  const env = options.env ?? process.env;
  const spanProcessors: SpanProcessor[] = [];
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) spanProcessors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  if (env.CAIRN_TRACE_FILE)
    spanProcessors.push(new SimpleSpanProcessor(new JsonLinesSpanExporter(env.CAIRN_TRACE_FILE)));
  for (const exporter of options.exporters ?? []) spanProcessors.push(new SimpleSpanProcessor(exporter));
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? options.serviceName }),
    spanProcessors,
    ...(spanProcessors.length === 0 ? { sampler: new AlwaysOffSampler() } : {}),
  });
  provider.register();
  if (options.instrumentLibraries !== false) instrumentLibraries(provider);
  const tracing: Tracing = {
    provider,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      active = undefined;
    },
  };
  active = tracing;
  return tracing;
}

export function getTracer(name: string): Tracer {
  return trace.getTracer(name);
}

export type SpanOptions = {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** Start a new trace instead of a child of the active span. */
  root?: boolean;
};

/** Runs `fn` inside a new active span; records an error and rethrows it. */
export async function startSpan<T>(
  tracer: Tracer,
  name: string,
  fn: (span: Span) => Promise<T> | T,
  options: SpanOptions = {},
): Promise<T> {
  return tracer.startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      attributes: options.attributes ?? {},
      ...(options.links?.length ? { links: options.links } : {}),
      ...(options.root ? { root: true } : {}),
    },
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Runs `fn` in one span in which the instrumented libraries record no spans of their own: a
 * Redis pipeline of hundreds of reads is one span (`redis <what>`, with its command count),
 * not hundreds, whose making would cost more than the reads.
 */
export function startBatchSpan<T>(
  tracer: Tracer,
  name: string,
  fn: (span: Span) => Promise<T> | T,
  options: SpanOptions = {},
): Promise<T> {
  return startSpan(
    tracer,
    name,
    (span) => context.with(suppressTracing(context.active()), () => fn(span)),
    options,
  );
}

/** A link to the span whose context `carrier` holds (none when it holds no valid one). */
export function linkFrom(carrier: TraceCarrier | undefined): Link[] {
  const linked = carrier ? trace.getSpanContext(extractTraceContext(carrier, ROOT_CONTEXT)) : undefined;
  return linked && isSpanContextValid(linked) ? [{ context: linked }] : [];
}

/**
 * Handles a message in a span of its own trace, linked to the spans that produced it (the W3C
 * contexts in `carriers`: a message's headers, or the contexts a message carries for each of
 * its parts). A consumer's work is not part of the producer's request: it happens later, maybe
 * many times (redelivery), maybe for a batch.
 */
export function startLinkedSpan<T>(
  tracer: Tracer,
  name: string,
  carriers: TraceCarrier | readonly TraceCarrier[] | undefined,
  fn: (span: Span) => Promise<T> | T,
  options: Omit<SpanOptions, "links" | "root"> = {},
): Promise<T> {
  const list: readonly (TraceCarrier | undefined)[] = Array.isArray(carriers) ? carriers : [carriers];
  return context.with(ROOT_CONTEXT, () =>
    startSpan(tracer, name, fn, { ...options, links: list.flatMap((c) => linkFrom(c)), root: true }),
  );
}
