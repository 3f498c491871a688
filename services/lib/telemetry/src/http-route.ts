import { context, trace } from "@opentelemetry/api";
import { getRPCMetadata, RPCType } from "@opentelemetry/core";

/**
 * Tells the HTTP server span of the request being handled its route template: the HTTP
 * instrumentation then names it `GET /v1/memories/:id` and sets `http.route`. A path with
 * parameters is recorded as its template (`url.path`), since parameters can carry key labels.
 */
export function setHttpRoute(route: string): void {
  const metadata = getRPCMetadata(context.active());
  if (metadata?.type === RPCType.HTTP) metadata.route = route;
  if (route.includes(":")) trace.getActiveSpan()?.setAttribute("url.path", route);
}
