import { trace } from "@opentelemetry/api";
import { type Logger, pino } from "pino";

export type { Logger } from "pino";

/**
 * One JSON line per event, tagged with the service and, inside a span, the trace and span
 * ids so a log line can be found from a trace and the other way round.
 */
export function createLogger(service: string, level = process.env.CAIRN_LOG_LEVEL ?? "info"): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  });
}
