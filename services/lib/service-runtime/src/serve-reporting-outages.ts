// A request handler whose store is away answers `unavailable` (a 503 at the gateway, retry
// shortly), never `internal`: a Postgres, Redis or NATS outage is not a bug. Every service
// answers its requests through this, so the rule of `isDependencyFailure` holds on each.
import { type ServeOptions, serve } from "@cairn/bus";
import type { RpcDefinition, RpcParsedRequest, RpcReplyData } from "@cairn/contracts";
import type { Msg, NatsConnection, Subscription } from "@nats-io/nats-core";
import { reportOutage } from "./dependency-failure.ts";

/** `serve` from @cairn/bus, with the handler's dependency failures reported as `unavailable` naming `what`. */
export function serveReportingOutages<D extends RpcDefinition>(
  nc: NatsConnection,
  definition: D,
  what: string,
  handler: (request: RpcParsedRequest<D>, msg: Msg) => Promise<RpcReplyData<D>> | RpcReplyData<D>,
  options: ServeOptions = {},
): Subscription {
  return serve(
    nc,
    definition,
    (request, msg) => reportOutage(what, async () => handler(request, msg)),
    options,
  );
}
