// The checks every request to /v1 and /mcp passes before its handler: the Host and Origin (for
// /mcp), the client address's failed authentications, the API key, and the key's rate limit.
// Answers refusals as problem+json (a throttle's with `Retry-After`); none repeats a header's value.
import { CairnError } from "@cairn/contracts";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../operations/caller.ts";
import { instanceOf, sendProblem } from "../rest/problem.ts";
import type { AuthFailureThrottle } from "./auth-failure-throttle.ts";
import { type Authenticator, bearerToken } from "./authenticator.ts";
import { createHostPolicy, type HostPolicy, type OriginPolicy } from "./origin-policy.ts";
import type { RateLimiter } from "./rate-limiter.ts";

export type RequestGuardDeps = {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  originPolicy: OriginPolicy;
  /** Default: loopback names and IP literals only. */
  hostPolicy?: HostPolicy | undefined;
  /** Default: no throttle. */
  authFailureThrottle?: AuthFailureThrottle | undefined;
};

const callers = new WeakMap<FastifyRequest, Caller>();

/** The authenticated caller of a request that passed the guard. */
export function callerOf(request: FastifyRequest): Caller | undefined {
  return callers.get(request);
}

const publicPaths = new Set(["/healthz", "/readyz", "/openapi.json"]);

/** Whether a path is behind the guard: everything under /v1 and /mcp (their replies are a caller's). */
export function isGuardedPath(path: string): boolean {
  if (publicPaths.has(path)) return false;
  return path === "/mcp" || path.startsWith("/mcp/") || path === "/v1" || path.startsWith("/v1/");
}

export function registerRequestGuard(app: FastifyInstance, deps: RequestGuardDeps): void {
  const hostPolicy = deps.hostPolicy ?? createHostPolicy([]);
  app.addHook("onRequest", async (request, reply) => {
    const path = instanceOf(request.url);
    if (!isGuardedPath(path)) return;
    if (path === "/mcp" || path.startsWith("/mcp/")) {
      if (!hostPolicy(request.headers.host)) {
        return sendProblem(
          reply,
          new CairnError("forbidden", "this Host may not use this MCP endpoint", {
            hint: "reach the gateway by a name in CAIRN_ALLOWED_HOSTS (loopback names and IP addresses always work)",
          }),
          path,
        );
      }
      if (!deps.originPolicy(request.headers.origin)) {
        return sendProblem(
          reply,
          new CairnError("forbidden", "this Origin may not use this MCP endpoint", {
            hint: "add the origin to CAIRN_ALLOWED_ORIGINS if it should",
          }),
          path,
        );
      }
    }
    // A key confirmed moments ago needs no lookup: its rate limit is taken while the address's
    // throttle is asked (one Redis round trip of the shared state's, not two in a row). A key
    // that is not is looked up only after the throttle let the address through.
    const known = deps.authenticator.known(request.headers.authorization);
    const [throttledFor, early] = await Promise.all([
      deps.authFailureThrottle?.refusedFor(request.ip),
      known ? deps.rateLimiter.take(known.keyId) : undefined,
    ]);
    if (throttledFor !== undefined) {
      return sendProblem(
        reply,
        new CairnError("rate_limited", "too many requests from this address had a wrong API key", {
          hint: `check the key, then retry after ${throttledFor} s`,
          details: { retryAfterSeconds: throttledFor },
        }),
        path,
      );
    }
    let caller: Caller;
    try {
      const key = known ?? (await deps.authenticator.authenticate(request.headers.authorization));
      caller = { keyId: key.keyId, principal: key.principal };
    } catch (error) {
      if (error instanceof CairnError && error.code === "unauthenticated") {
        reply.header("WWW-Authenticate", 'Bearer realm="cairn"');
        // A missing key is a misconfigured client; a wrong one may be a guess.
        if (bearerToken(request.headers.authorization) !== undefined) {
          await deps.authFailureThrottle?.recordFailure(request.ip);
        }
      }
      return sendProblem(reply, error, path);
    }
    const decision = early ?? (await deps.rateLimiter.take(caller.keyId));
    reply.header("RateLimit-Limit", String(deps.rateLimiter.limit));
    if (!decision.allowed) {
      reply.header("RateLimit-Remaining", "0");
      return sendProblem(
        reply,
        new CairnError("rate_limited", "this API key sent too many requests", {
          hint: `retry after ${decision.retryAfterSeconds} s`,
          details: { retryAfterSeconds: decision.retryAfterSeconds },
        }),
        path,
      );
    }
    reply.header("RateLimit-Remaining", String(decision.remaining));
    callers.set(request, caller);
  });
}
