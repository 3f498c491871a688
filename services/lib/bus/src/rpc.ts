import { CairnError, type ErrorBody, isCairnError, RpcReplySchema } from "@cairn/contracts";
import { extractTraceContext, getTracer, injectTraceContext, type Logger } from "@cairn/telemetry";
import { headers, type Msg, type NatsConnection, RequestError, type Subscription } from "@nats-io/nats-core";
import { context, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { z } from "zod";

const tracer = getTracer("@cairn/bus");

export type RpcHandler<S extends z.ZodType, R> = (request: z.infer<S>, msg: Msg) => Promise<R> | R;

export type ServeRpcOptions<S extends z.ZodType, R> = {
  subject: string;
  /** Copies of a service share one queue group so a request reaches exactly one of them. */
  queue?: string;
  schema: S;
  handler: RpcHandler<S, R>;
  logger?: Logger;
};

function toErrorBody(error: unknown): ErrorBody {
  if (isCairnError(error)) return error.toBody();
  return { code: "internal", message: "internal error" };
}

/**
 * Answers requests on `subject`: decodes and validates the JSON payload, runs the handler
 * inside a server span that continues the caller's trace (W3C context from the headers),
 * and replies with the `{ ok, data | error }` envelope.
 */
export function serveRpc<S extends z.ZodType, R>(
  nc: NatsConnection,
  options: ServeRpcOptions<S, R>,
): Subscription {
  const { subject, schema, handler, logger } = options;
  return nc.subscribe(subject, {
    ...(options.queue ? { queue: options.queue } : {}),
    callback: (err, msg) => {
      if (err) {
        logger?.error({ err, subject }, "subscription error");
        return;
      }
      const parent = extractTraceContext(msg.headers);
      void context.with(parent, () =>
        tracer.startActiveSpan(`rpc ${subject}`, { kind: SpanKind.SERVER }, async (span) => {
          span.setAttribute("messaging.system", "nats");
          span.setAttribute("messaging.destination.name", subject);
          let reply: string;
          try {
            let payload: unknown;
            try {
              payload = msg.data.length === 0 ? {} : msg.json();
            } catch (cause) {
              throw new CairnError("validation_failed", "the request body is not valid JSON", { cause });
            }
            const parsed = schema.safeParse(payload);
            if (!parsed.success) {
              throw new CairnError("validation_failed", "the request does not match its schema", {
                details: { issues: parsed.error.issues },
              });
            }
            const data = await handler(parsed.data, msg);
            reply = JSON.stringify({ ok: true, data: data ?? null });
          } catch (error) {
            const body = toErrorBody(error);
            if (body.code === "internal") {
              logger?.error({ err: error, subject }, "request failed");
              span.recordException(error as Error);
            }
            span.setStatus({ code: SpanStatusCode.ERROR, message: body.code });
            span.setAttribute("cairn.error.code", body.code);
            reply = JSON.stringify({ ok: false, error: body });
          } finally {
            span.end();
          }
          if (msg.reply) msg.respond(reply);
        }),
      );
    },
  });
}

export type RequestOptions = { timeoutMs?: number };

/**
 * Sends a request and returns the reply's data; an error reply is thrown as a
 * `CairnError` with its code, no responder as `unavailable`, no answer in time as `timeout`.
 */
export async function requestRpc<T = unknown>(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  options: RequestOptions = {},
): Promise<T> {
  return tracer.startActiveSpan(`rpc ${subject}`, { kind: SpanKind.CLIENT }, async (span) => {
    span.setAttribute("messaging.system", "nats");
    span.setAttribute("messaging.destination.name", subject);
    try {
      const h = headers();
      injectTraceContext(h);
      let msg: Msg;
      try {
        msg = await nc.request(subject, JSON.stringify(payload ?? {}), {
          timeout: options.timeoutMs ?? 10_000,
          headers: h,
        });
      } catch (cause) {
        if (cause instanceof RequestError && cause.isNoResponders()) {
          throw new CairnError("unavailable", `no service answers ${subject}`, {
            hint: "the service may be starting or down; retry shortly",
            cause,
          });
        }
        throw new CairnError("timeout", `no answer on ${subject} in time`, {
          hint: "the service is slow or unreachable; retry shortly",
          cause,
        });
      }
      const reply = RpcReplySchema.parse(msg.json());
      if (!reply.ok) throw CairnError.fromBody(reply.error);
      return reply.data as T;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}
