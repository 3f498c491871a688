export type { Logger } from "./logger.ts";
export { createLogger } from "./logger.ts";
export type { HeaderCarrier } from "./propagation.ts";
export { currentTraceContext, extractTraceContext, injectTraceContext } from "./propagation.ts";
export type { SpanOptions, Tracing, TracingOptions } from "./tracing.ts";
export { getTracer, initTracing, JsonLinesSpanExporter, startSpan } from "./tracing.ts";
