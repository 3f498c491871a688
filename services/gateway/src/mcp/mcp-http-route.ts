// MCP over streamable HTTP at /mcp, served by whichever gateway copy a request reaches.
//
// A session is a record in the session store (the API key that opened it and its episode),
// not a live object: each request gets a transport of its own (the SDK's stateless mode, one
// transport per request) and a server bound to the request's caller and the session's
// episode (servers are reused, see mcp-server-pool.ts). The session id is checked here against
// the store, so a session opened on one copy is served by another, still only with the key
// that opened it (another key: 403), and a DELETE ends it for every copy.
//
// Every answer travels on the response of the POST that asked: the tools send no
// notifications and make no requests of the client, so there is no server-sent stream to
// hold. GET (a client asking for one) is answered 405, which the protocol provides for a
// server that offers none; a client's GET and its POSTs therefore never need the same copy.
import { randomBytes, randomUUID } from "node:crypto";
import { CairnError } from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";
import { sendProblem, toProblem } from "../rest/problem.ts";
import { retryAfterOf } from "../retries.ts";
import { createServer } from "./create-server.ts";
import { createMcpServerPool } from "./mcp-server-pool.ts";
import { createLocalMcpSessionStore, type McpSession, type McpSessionStore } from "./mcp-session-store.ts";

export type McpRouteDeps = {
  ops: Operations;
  callerOf: (request: FastifyRequest) => Caller | undefined;
  logger: Logger;
  /** A session unused this long is closed; the client starts a new one. */
  sessionIdleMs: number;
  /** Where sessions are kept (default: this copy's memory only; the gateway service shares them in Redis). */
  sessions?: McpSessionStore | undefined;
  version: string;
};

function opensSession(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((m) => isInitializeRequest(m));
  return isInitializeRequest(body);
}

const path = "/mcp";

/** The session a request names, if it exists and is the caller's; otherwise why not. */
async function sessionOf(
  sessions: McpSessionStore,
  sessionId: string,
  caller: Caller,
): Promise<{ session: McpSession } | { refusal: unknown }> {
  let session: McpSession | undefined;
  try {
    session = await sessions.find(sessionId);
  } catch (error) {
    return { refusal: error };
  }
  if (!session) {
    return {
      refusal: new CairnError("not_found", "no such MCP session (it may have expired)", {
        hint: "start a new session with an initialize request",
      }),
    };
  }
  if (session.keyId !== caller.keyId) {
    return {
      refusal: new CairnError("forbidden", "this MCP session belongs to another API key", {
        hint: "start your own session with an initialize request",
      }),
    };
  }
  return { session };
}

export function registerMcpRoute(app: FastifyInstance, deps: McpRouteDeps): void {
  const ownStore = deps.sessions === undefined;
  const sessions = deps.sessions ?? createLocalMcpSessionStore({ idleMs: deps.sessionIdleMs });
  const servers = createMcpServerPool({
    ops: deps.ops,
    build: (binding) => createServer(binding, deps.version),
  });

  app.addHook("onClose", async () => {
    if (ownStore) sessions.close();
  });

  app.route({
    method: ["GET", "POST", "DELETE"],
    url: path,
    handler: async (request, reply) => {
      const caller = deps.callerOf(request);
      if (!caller) return sendProblem(reply, new CairnError("unauthenticated", "an API key is required"));
      if (request.method === "GET") {
        reply.header("Allow", "POST, DELETE");
        return sendProblem(
          reply,
          new CairnError("method_not_allowed", "this MCP endpoint sends no server-initiated stream (GET)", {
            hint: "send requests with POST: each answer comes on its own response",
          }),
          path,
        );
      }
      const header = request.headers["mcp-session-id"];
      const sessionId = Array.isArray(header) ? header[0] : header;
      let id: string;
      let session: McpSession;
      let opened = false;
      if (sessionId !== undefined) {
        const found = await sessionOf(sessions, sessionId, caller);
        if ("refusal" in found) return sendProblem(reply, found.refusal, path);
        if (request.method === "DELETE") {
          try {
            await sessions.end(sessionId);
          } catch (error) {
            return sendProblem(reply, error, path);
          }
          return reply.code(200).send();
        }
        id = sessionId;
        session = found.session;
      } else {
        if (request.method !== "POST" || !opensSession(request.body)) {
          return sendProblem(
            reply,
            new CairnError("validation_failed", "no MCP session: send an initialize request first", {
              hint: "the Mcp-Session-Id header is missing",
            }),
            path,
          );
        }
        id = randomBytes(32).toString("base64url");
        // The session is an episode: what its memories were written in (not the session id,
        // which authenticates and must not be stored).
        session = { keyId: caller.keyId, episode: `mcp-session-${randomUUID()}` };
        try {
          await sessions.open(id, session);
        } catch (error) {
          return sendProblem(reply, error, path);
        }
        opened = true;
      }

      const { server, binding } = servers.acquire({ caller, episode: session.episode });
      // Stateless in the SDK's terms: the session is checked above, against the shared store.
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.hijack();
      // What the guard set (RateLimit-*) and the session id go out with the transport's answer.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      reply.raw.setHeader("mcp-session-id", id);
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (error) {
        deps.logger.error({ err: error }, "MCP request failed");
        if (!reply.raw.headersSent) {
          const failure = new CairnError("internal", "internal error");
          const problem = toProblem(failure, path);
          reply.raw.writeHead(problem.status, {
            "content-type": "application/problem+json",
            "retry-after": String(retryAfterOf(failure)),
          });
          reply.raw.end(JSON.stringify(problem));
        }
      } finally {
        // A server that did not close cleanly is not handed to another request.
        if (
          await server.close().then(
            () => true,
            () => false,
          )
        )
          servers.release({ server, binding });
      }
      // An initialize the transport refused opened nothing a client can use.
      if (opened && reply.raw.statusCode >= 400) await sessions.end(id).catch(() => {});
      return reply;
    },
  });
}
