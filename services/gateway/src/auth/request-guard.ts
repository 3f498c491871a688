// The checks every request to /v1 and /mcp passes before its handler: the Origin (for /mcp),
// the API key, and the key's rate limit. Answers refusals as problem+json.
import { CairnError } from "@cairn/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../operations/caller.ts";
import { sendProblem } from "../rest/problem.ts";
import type { Authenticator } from "./authenticator.ts";
import type { OriginPolicy } from "./origin-policy.ts";
import type { RateLimiter } from "./rate-limiter.ts";

export type RequestGuardDeps = {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  originPolicy: OriginPolicy;
};

const callers = new WeakMap<FastifyRequest, Caller>();

/** The authenticated caller of a request that passed the guard. */
export function callerOf(request: FastifyRequest): Caller | undefined {
  return callers.get(request);
}

const publicPaths = new Set(["/healthz", "/readyz", "/openapi.json"]);

function isGuarded(url: string): boolean {
  const path = url.split("?", 1)[0] ?? "";
  if (publicPaths.has(path)) return false;
  return path === "/mcp" || path.startsWith("/mcp/") || path === "/v1" || path.startsWith("/v1/");
}

export function registerRequestGuard(app: FastifyInstance, deps: RequestGuardDeps): void {
  app.addHook("onRequest", async (request, reply) => {
    if (!isGuarded(request.url)) return;
    if (request.url.startsWith("/mcp") && !deps.originPolicy(request.headers.origin)) {
      return sendProblem(
        reply,
        new CairnError("forbidden", `origin ${request.headers.origin} may not use this MCP endpoint`, {
          hint: "add the origin to CAIRN_ALLOWED_ORIGINS if it should",
        }),
        request.url,
      );
    }
    let caller: Caller;
    try {
      const key = await deps.authenticator.authenticate(request.headers.authorization);
      caller = { keyId: key.keyId, principal: key.principal };
    } catch (error) {
      reply.header("WWW-Authenticate", 'Bearer realm="cairn"');
      return sendProblem(reply, error, request.url);
    }
    const decision = deps.rateLimiter.take(caller.keyId);
    reply.header("RateLimit-Limit", String(deps.rateLimiter.limit));
    if (!decision.allowed) {
      reply.header("Retry-After", String(decision.retryAfterSeconds));
      reply.header("RateLimit-Remaining", "0");
      return sendProblem(
        reply,
        new CairnError("rate_limited", "this API key sent too many requests", {
          hint: `retry after ${decision.retryAfterSeconds} s`,
          details: { retryAfterSeconds: decision.retryAfterSeconds },
        }),
        request.url,
      );
    }
    reply.header("RateLimit-Remaining", String(decision.remaining));
    callers.set(request, caller);
  });
}
