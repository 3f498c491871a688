export type { Logger } from "./logger.ts";
export { createLogger } from "./logger.ts";
export type { Metrics } from "./metrics.ts";
export { createSecondsHistogram, getMeter, initMetrics, secondsBuckets } from "./metrics.ts";
export type { HeaderCarrier } from "./propagation.ts";
export { currentTraceContext, extractTraceContext, injectTraceContext } from "./propagation.ts";
export type { SpanOptions, Tracing, TracingOptions } from "./tracing.ts";
export { getTracer, initTracing, JsonLinesSpanExporter, startSpan } from "./tracing.ts";
