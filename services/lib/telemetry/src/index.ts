// The OpenTelemetry API pieces services use, so that they depend on this package only.
export type { Attributes, Context, Link, Span } from "@opentelemetry/api";
export { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
export { setHttpRoute } from "./http-route.ts";
export { redactQuery, redisStatement } from "./instrument-libraries.ts";
export type { LogFields } from "./log-context.ts";
export { currentLogFields, withLogFields } from "./log-context.ts";
export type { Logger } from "./logger.ts";
export { createLogger, redactedLogPaths } from "./logger.ts";
export type { Metrics, MetricsOptions } from "./metrics.ts";
export {
  createSecondsHistogram,
  getMeter,
  initMetrics,
  recallStageHistogram,
  secondsBuckets,
} from "./metrics.ts";
export type { HeaderCarrier, TraceCarrier } from "./propagation.ts";
export { currentTraceContext, extractTraceContext, injectTraceContext } from "./propagation.ts";
export type { SpanOptions, Tracing, TracingOptions } from "./tracing.ts";
export {
  getTracer,
  initTracing,
  JsonLinesSpanExporter,
  linkFrom,
  startBatchSpan,
  startLinkedSpan,
  startSpan,
} from "./tracing.ts";
