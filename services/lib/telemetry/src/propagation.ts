import { type Context, context, propagation } from "@opentelemetry/api";

/** Anything with get/set of string headers (NATS `MsgHdrs`, a plain record). */
export type HeaderCarrier = {
  get(key: string): string | undefined | null;
  set(key: string, value: string): void;
};

/** Writes the active trace context (W3C `traceparent`/`tracestate`) into headers. */
export function injectTraceContext(carrier: HeaderCarrier, ctx: Context = context.active()): void {
  propagation.inject(ctx, carrier, {
    set: (c, key, value) => c.set(key, value),
  });
}

/** Reads a trace context from headers; returns the active context when there is none. */
export function extractTraceContext(carrier: HeaderCarrier | undefined): Context {
  if (!carrier) return context.active();
  return propagation.extract(context.active(), carrier, {
    get: (c, key) => c.get(key) ?? undefined,
    keys: () => ["traceparent", "tracestate"],
  });
}

/** Trace context as a plain record, for event metadata stored in the log. */
export function currentTraceContext(): Record<string, string> {
  const out: Record<string, string> = {};
  propagation.inject(context.active(), out);
  return out;
}
