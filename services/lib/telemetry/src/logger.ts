import { trace } from "@opentelemetry/api";
import { type DestinationStream, type Logger, type LoggerOptions, pino } from "pino";
import { currentLogFields } from "./log-context.ts";

export type { Logger } from "pino";

/**
 * Fields that hold memory text or secrets, censored wherever a log call passes them (a
 * safety net: log calls name what happened, ids and counts, never the content). `*.x` covers
 * one level of nesting, as in `{ memory: { content } }` or `{ request: { token } }`.
 */
export const redactedLogPaths = [
  "content",
  "title",
  "text",
  "query",
  "authorization",
  "apiKey",
  "token",
  "secret",
  "seal",
  "*.content",
  "*.title",
  "*.text",
  "*.query",
  "*.authorization",
  "*.apiKey",
  "*.token",
  "*.secret",
  "*.seal",
  "req.headers.authorization",
];

/**
 * One JSON line per event, tagged with the service and, inside a span, the trace and span
 * ids so a log line can be found from a trace and the other way round; inside work done for
 * a tenant (a request, a projected event), its tenant and agent.
 */
export function createLogger(
  service: string,
  level = process.env.CAIRN_LOG_LEVEL ?? "info",
  destination?: DestinationStream,
): Logger {
  const options: LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: redactedLogPaths, censor: "[redacted]" },
    mixin() {
      const out: Record<string, string> = { ...currentLogFields() };
      const span = trace.getActiveSpan();
      if (span) {
        const { traceId, spanId } = span.spanContext();
        out.trace_id = traceId;
        out.span_id = spanId;
      }
      return out;
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
