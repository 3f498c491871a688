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

/** Headers, or a plain record of them (an event's `meta.traceContext`). */
export type TraceCarrier = HeaderCarrier | Readonly<Record<string, string>>;

function isHeaderCarrier(carrier: TraceCarrier): carrier is HeaderCarrier {
  return typeof (carrier as HeaderCarrier).get === "function";
}

/**
 * Reads a trace context from headers (or a record) on top of `base` (the active context by
 * default); returns `base` when there is none.
 */
export function extractTraceContext(
  carrier: TraceCarrier | undefined,
  base: Context = context.active(),
): Context {
  if (!carrier) return base;
  return propagation.extract(base, carrier, {
    get: (c, key) =>
      isHeaderCarrier(c) ? (c.get(key) ?? undefined) : (c as Readonly<Record<string, string>>)[key],
    keys: () => ["traceparent", "tracestate"],
  });
}

/** Trace context (the active one by default) as a plain record, for event metadata and message bodies. */
export function currentTraceContext(ctx: Context = context.active()): Record<string, string> {
  const out: Record<string, string> = {};
  propagation.inject(ctx, out);
  return out;
}
