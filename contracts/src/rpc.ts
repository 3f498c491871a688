import { z } from "zod";
import { ErrorBodySchema } from "./errors.ts";

/** Every NATS reply is an envelope: the data, or an error with a stable code. */
export const RpcReplySchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: ErrorBodySchema }),
]);
export type RpcReply = z.infer<typeof RpcReplySchema>;

/** Headers carried by every request and event: W3C trace context. */
export const traceHeaderNames = ["traceparent", "tracestate"] as const;
