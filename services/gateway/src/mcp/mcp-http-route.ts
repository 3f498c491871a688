// MCP over streamable HTTP at /mcp. Each session has its own transport and server, bound to
// the API key that opened it: a request with another key is refused (403), and every request
// still carries and passes its Bearer key (the request guard runs first).
import { randomBytes, randomUUID } from "node:crypto";
import { CairnError } from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";
import { sendProblem, toProblem } from "../rest/problem.ts";
import { retryAfterOf } from "../retries.ts";
import { createServer } from "./create-server.ts";

export type McpRouteDeps = {
  ops: Operations;
  callerOf: (request: FastifyRequest) => Caller | undefined;
  logger: Logger;
  /** A session unused this long is closed; the client starts a new one. */
  sessionIdleMs: number;
  version: string;
};

type Session = {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  keyId: string;
  lastSeen: number;
};

function opensSession(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((m) => isInitializeRequest(m));
  return isInitializeRequest(body);
}

export function registerMcpRoute(app: FastifyInstance, deps: McpRouteDeps): { sessionCount: () => number } {
  const sessions = new Map<string, Session>();

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - deps.sessionIdleMs;
      for (const [id, session] of sessions) {
        if (session.lastSeen < cutoff) {
          sessions.delete(id);
          void session.transport.close().catch(() => {});
        }
      }
    },
    Math.min(60_000, deps.sessionIdleMs),
  );
  sweep.unref();

  app.addHook("onClose", async () => {
    clearInterval(sweep);
    await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => {})));
    sessions.clear();
  });

  app.route({
    method: ["GET", "POST", "DELETE"],
    url: "/mcp",
    handler: async (request, reply) => {
      const caller = deps.callerOf(request);
      if (!caller) return sendProblem(reply, new CairnError("unauthenticated", "an API key is required"));
      const header = request.headers["mcp-session-id"];
      const sessionId = Array.isArray(header) ? header[0] : header;
      let session: Session | undefined;
      if (sessionId !== undefined) {
        session = sessions.get(sessionId);
        if (!session) {
          return sendProblem(
            reply,
            new CairnError("not_found", "no such MCP session (it may have expired)", {
              hint: "start a new session with an initialize request",
            }),
            "/mcp",
          );
        }
        if (session.keyId !== caller.keyId) {
          return sendProblem(
            reply,
            new CairnError("forbidden", "this MCP session belongs to another API key", {
              hint: "start your own session with an initialize request",
            }),
            "/mcp",
          );
        }
      } else {
        if (request.method !== "POST" || !opensSession(request.body)) {
          return sendProblem(
            reply,
            new CairnError("validation_failed", "no MCP session: send an initialize request first", {
              hint: "the Mcp-Session-Id header is missing",
            }),
            "/mcp",
          );
        }
        // The session is an episode: what its memories were written in (not the session id,
        // which authenticates and must not be stored).
        const episode = `mcp-session-${randomUUID()}`;
        const server = createServer({ ops: deps.ops, caller, episode }, deps.version);
        const fresh: Session = {
          server,
          keyId: caller.keyId,
          lastSeen: Date.now(),
          transport: new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomBytes(32).toString("base64url"),
            enableJsonResponse: true,
            onsessioninitialized: (id) => {
              sessions.set(id, fresh);
            },
            onsessionclosed: (id) => {
              sessions.delete(id);
            },
          }),
        };
        fresh.transport.onclose = () => {
          if (fresh.transport.sessionId) sessions.delete(fresh.transport.sessionId);
        };
        await server.connect(fresh.transport);
        session = fresh;
      }
      session.lastSeen = Date.now();
      reply.hijack();
      try {
        await session.transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        deps.logger.error({ err: error }, "MCP request failed");
        if (!reply.raw.headersSent) {
          const failure = new CairnError("internal", "internal error");
          const problem = toProblem(failure, "/mcp");
          reply.raw.writeHead(problem.status, {
            "content-type": "application/problem+json",
            "retry-after": String(retryAfterOf(failure)),
          });
          reply.raw.end(JSON.stringify(problem));
        }
      }
      return reply;
    },
  });

  return { sessionCount: () => sessions.size };
}
