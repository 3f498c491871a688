// What every HTTP answer of the gateway shares, whoever produced it (a route, the request guard,
// the MCP transport writing to the socket itself, Fastify refusing a request before routing,
// Node refusing one it cannot parse): security headers, `Cache-Control: no-store` where the
// answer is a caller's data, bodies only as JSON, `Retry-After` on every 5xx, and errors as
// problem+json that repeat nothing of the request.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { CairnError } from "@cairn/contracts";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isGuardedPath } from "./auth/request-guard.ts";
import { instanceOf, sendProblem, toProblem } from "./rest/problem.ts";
import { defaultRetryAfterSeconds } from "./retries.ts";

const securityHeaders = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
};

/**
 * Sets the headers on the raw response, so they are sent however it is written (Fastify
 * merges them into its own; the MCP transport writes the socket after `hijack`). Replies under
 * /v1 and /mcp carry memories, keys and principals: no cache may keep them.
 */
function setHeaders(res: ServerResponse, options: { noStore: boolean }): void {
  for (const [name, value] of Object.entries(securityHeaders)) res.setHeader(name, value);
  if (options.noStore) res.setHeader("Cache-Control", "no-store");
}

/**
 * Fastify's `frameworkErrors`: a URL it cannot decode (`FST_ERR_BAD_URL`) or a path parameter
 * over its limit (`FST_ERR_MAX_PARAM_LENGTH`) is refused before any hook runs, so the headers
 * are set here and the problem names no instance (the path is what could not be read).
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  setHeaders(reply.raw, { noStore: true });
  sendProblem(reply, error);
}

/** Node's refusals of a request it cannot parse, written to the socket as problem+json. */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const cairn =
    error.code === "HPE_HEADER_OVERFLOW"
      ? new CairnError("too_large", "the request headers are larger than the gateway accepts")
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? new CairnError("timeout", "the request did not arrive in time")
        : new CairnError("validation_failed", "the request is not valid HTTP");
  const problem = toProblem(cairn);
  const body = JSON.stringify(problem);
  const headers = [
    `HTTP/1.1 ${problem.status} ${problem.title}`,
    "Content-Type: application/problem+json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Cache-Control: no-store",
    ...Object.entries(securityHeaders).map(([name, value]) => `${name}: ${value}`),
    ...(problem.status >= 500 ? [`Retry-After: ${defaultRetryAfterSeconds}`] : []),
    "Connection: close",
  ];
  if (socket.writable) socket.write(`${headers.join("\r\n")}\r\n\r\n${body}`);
  socket.destroy(error);
}

const retriedStatuses = new Set([500, 502, 503, 504]);

export function registerHttpHardening(app: FastifyInstance): void {
  // JSON only: Fastify's text/plain parser would hand a form or a text body to a JSON route,
  // which then fails validation (422) instead of saying what is wrong (415).
  app.removeContentTypeParser("text/plain");
  app.addHook("onRequest", async (request, reply) => {
    setHeaders(reply.raw, { noStore: isGuardedPath(instanceOf(request.url)) });
  });
  // Routes and the guard set `Retry-After` with their errors; this covers any other 5xx
  // (`/readyz` while a dependency is down).
  app.addHook("onSend", async (_request, reply, payload) => {
    if (retriedStatuses.has(reply.statusCode) && !reply.hasHeader("retry-after")) {
      reply.header("Retry-After", String(defaultRetryAfterSeconds));
    }
    return payload;
  });
}
