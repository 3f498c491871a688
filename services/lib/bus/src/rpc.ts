import {
  CairnError,
  type ErrorBody,
  isCairnError,
  parseRequest,
  type RpcDefinition,
  type RpcParsedRequest,
  type RpcReplyData,
  RpcReplySchema,
  type RpcRequest,
} from "@cairn/contracts";
import {
  createSecondsHistogram,
  extractTraceContext,
  getMeter,
  getTracer,
  injectTraceContext,
  type LogFields,
  type Logger,
  withLogFields,
} from "@cairn/telemetry";
import { headers, type Msg, type NatsConnection, RequestError, type Subscription } from "@nats-io/nats-core";
import { context, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { z } from "zod";

const tracer = getTracer("@cairn/bus");
const handled = createSecondsHistogram(
  getMeter("@cairn/bus"),
  "cairn_rpc_server_duration_seconds",
  "Requests a service answered over NATS, by subject and reply code (ok or the error code)",
);

type RawHandler = (request: unknown, msg: Msg) => Promise<unknown> | unknown;

type ServeRawOptions = {
  subject: string;
  queue?: string | undefined;
  schema: z.ZodType;
  /** Checks the handler's answer before it is sent (the definition's reply schema). */
  reply?: z.ZodType | undefined;
  handler: RawHandler;
  logger?: Logger | undefined;
};

/** The tenant and agent a request is made for (its `principal`), when it names one. */
function principalOf(payload: unknown): LogFields {
  const principal = (payload as { principal?: { tenant?: unknown; agent?: unknown } } | null)?.principal;
  const out: LogFields = {};
  if (typeof principal?.tenant === "string") out.tenant = principal.tenant;
  if (typeof principal?.agent === "string") out.agent = principal.agent;
  return out;
}

function toErrorBody(error: unknown): ErrorBody {
  if (isCairnError(error)) return error.toBody();
  return { code: "internal", message: "internal error" };
}

/**
 * Answers requests on `subject`: decodes and validates the JSON payload, runs the handler
 * inside a server span that continues the caller's trace (W3C context from the headers),
 * and replies with the `{ ok, data | error }` envelope. The request's tenant and agent go
 * on the span (`cairn.tenant`, `cairn.agent`) and on every log line written while it runs.
 */
function serveRaw(nc: NatsConnection, options: ServeRawOptions): Subscription {
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
          const started = performance.now();
          let reply: string;
          let code = "ok";
          let who: LogFields = {};
          try {
            let payload: unknown;
            try {
              payload = msg.data.length === 0 ? {} : msg.json();
            } catch (cause) {
              throw new CairnError("validation_failed", "the request body is not valid JSON", { cause });
            }
            const request = parseRequest(`the request on ${subject}`, schema, payload);
            who = principalOf(request);
            if (who.tenant) span.setAttribute("cairn.tenant", who.tenant);
            if (who.agent) span.setAttribute("cairn.agent", who.agent);
            const data = await withLogFields(who, () => handler(request, msg));
            if (options.reply) {
              const checked = options.reply.safeParse(data ?? null);
              if (!checked.success) {
                logger?.error(
                  { subject, issues: checked.error.issues.slice(0, 3) },
                  "reply does not match its contract",
                );
                throw new CairnError("internal", `the reply on ${subject} does not match its contract`);
              }
            }
            reply = JSON.stringify({ ok: true, data: data ?? null });
          } catch (error) {
            const body = toErrorBody(error);
            code = body.code;
            if (body.code === "internal") {
              logger?.error({ err: error, subject, ...who }, "request failed");
              span.recordException(error as Error);
            }
            span.setStatus({ code: SpanStatusCode.ERROR, message: body.code });
            span.setAttribute("cairn.error.code", body.code);
            reply = JSON.stringify({ ok: false, error: body });
          } finally {
            span.end();
            handled.record((performance.now() - started) / 1000, { subject, code });
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
async function requestRaw(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  options: RequestOptions = {},
): Promise<unknown> {
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
      return reply.data;
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

export type ServeOptions = {
  /** Copies of a service share one queue group so a request reaches exactly one of them. */
  queue?: string | undefined;
  logger?: Logger | undefined;
};

/**
 * Answers the requests of one declared RPC: the request is validated against its schema
 * (`validation_failed` otherwise) and the handler's answer against the reply schema (a reply
 * that does not match is an `internal` error, logged, never sent).
 */
export function serve<D extends RpcDefinition>(
  nc: NatsConnection,
  definition: D,
  handler: (request: RpcParsedRequest<D>, msg: Msg) => Promise<RpcReplyData<D>> | RpcReplyData<D>,
  options: ServeOptions = {},
): Subscription {
  return serveRaw(nc, {
    subject: definition.subject,
    queue: options.queue,
    schema: definition.request,
    reply: definition.reply,
    handler: handler as RawHandler,
    logger: options.logger,
  });
}

/**
 * Calls one declared RPC: the request is checked before it is sent (with the same rule and
 * error codes the server uses) and the reply's data against the reply schema before it is
 * returned, so no caller works on an unchecked shape.
 */
export async function call<D extends RpcDefinition>(
  nc: NatsConnection,
  definition: D,
  request: RpcRequest<D>,
  options: RequestOptions = {},
): Promise<RpcReplyData<D>> {
  parseRequest(`the request on ${definition.subject}`, definition.request, request);
  const data = await requestRaw(nc, definition.subject, request, options);
  const reply = definition.reply.safeParse(data);
  if (!reply.success) {
    throw new CairnError("internal", `the reply on ${definition.subject} does not match its contract`, {
      details: { issues: reply.error.issues.slice(0, 5) },
    });
  }
  return reply.data as RpcReplyData<D>;
}
