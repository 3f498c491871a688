import { z } from "zod";
import { ErrorBodySchema, type ErrorCode } from "./errors.ts";

/** Every NATS reply is an envelope: the data, or an error with a stable code. */
export const RpcReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: ErrorBodySchema }),
]);
export type RpcReply = z.infer<typeof RpcReplySchema>;

/** Headers carried by every request and event: W3C trace context. */
export const traceHeaderNames = ["traceparent", "tracestate"] as const;

/**
 * One request/reply between services, declared once: its subject, the schema of the request
 * and of the reply, and the error codes it may answer (besides `validation_failed` for a
 * request that does not match, and `unavailable`/`timeout`/`internal` that any may). Both
 * sides validate against it: `serve` the request it takes and the reply it gives, `call` the
 * request it sends and the reply it gets.
 */
export type RpcDefinition<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> = {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
  readonly errors: readonly ErrorCode[];
};

export type RpcRequest<D extends RpcDefinition> = z.input<D["request"]>;
export type RpcParsedRequest<D extends RpcDefinition> = z.infer<D["request"]>;
export type RpcReplyData<D extends RpcDefinition> = z.infer<D["reply"]>;

export function defineRpc<Req extends z.ZodType, Rep extends z.ZodType>(
  definition: RpcDefinition<Req, Rep>,
): RpcDefinition<Req, Rep> {
  return definition;
}
