// What the gateway answers to requests that are malformed, hostile or from where it should not
// be reached, with the real gateway, ingest and search services in this process on real
// Postgres, Redis and NATS: every error is problem+json with a stable code and repeats nothing
// of the request; non-JSON bodies are 415; security and no-store headers; the Host check of
// /mcp; wrong API keys throttled per client address.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restRequest } from "../helpers/gateway-client.ts";
import { type GatewayStack, startGatewayStack } from "./gateway-stack.ts";

const adminKey = "cairn_badinput-admin-key-0123456789abcd";
/** Looks like a credential a client might put where it should not. */
const secret = "ghp_R8q2Zt5wLm3Xc9Vb7Nk4Jh6Gf1Ds0Ap2Qe5T";

let stack: GatewayStack;

beforeAll(async () => {
  stack = await startGatewayStack({
    name: "gateway_badinput",
    adminKey,
    services: ["ingest", "search"],
    env: {
      CAIRN_ALLOWED_HOSTS: "cairn.example.com",
      CAIRN_AUTH_FAILURE_LIMIT: "3",
      CAIRN_AUTH_FAILURE_WINDOW_MS: "600000",
      // The throttle test stands for clients at several addresses behind a proxy.
      CAIRN_TRUST_PROXY: "true",
    },
  });
});

afterAll(async () => {
  await stack?.stop();
});

type RawAnswer = { status: number; headers: Record<string, string | string[] | undefined>; text: string };

/** A request exactly as written (path, Host and body untouched by a URL parser or fetch). */
function raw(options: {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<RawAnswer> {
  const { port } = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method: options.method, path: options.path, headers: options.headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

const auth = { Authorization: `Bearer ${adminKey}` };

async function createMemory(slot: string): Promise<string> {
  const res = await restRequest(stack.baseUrl, adminKey, {
    method: "POST",
    path: "/v1/memories",
    body: { slot, content: `The memory in ${slot}.` },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** A problem document with its stable code, whose text repeats none of `mustNotContain`. */
function expectProblem(answer: RawAnswer, status: number, code: string, mustNotContain: string[]) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers["content-type"]).toContain("application/problem+json");
  const problem = JSON.parse(answer.text) as Record<string, unknown>;
  expect(problem).toMatchObject({ status, code, type: `urn:cairn:error:${code}` });
  expect(typeof problem.title).toBe("string");
  expect(typeof problem.detail).toBe("string");
  for (const text of mustNotContain) expect(answer.text).not.toContain(text);
  return problem;
}

describe("bad input", () => {
  it("answers the framework's own refusals as problem documents that do not repeat the URL", async () => {
    const badUrl = await raw({ method: "GET", path: `/v1/memories/%E0%A4%A${secret}`, headers: auth });
    expectProblem(badUrl, 422, "validation_failed", [secret, "%E0"]);

    const longParam = `${secret}${"x".repeat(300)}`;
    const tooLong = await raw({ method: "GET", path: `/v1/keys/${longParam}`, headers: auth });
    expectProblem(tooLong, 422, "validation_failed", [secret]);

    const noRoute = await raw({ method: "GET", path: `/v1/nothing/${secret}?q=${secret}`, headers: auth });
    expectProblem(noRoute, 404, "not_found", [secret]);
  });

  it("refuses a body that is not JSON with 415, and broken JSON with 422, repeating neither", async () => {
    const json = { ...auth, "content-type": "application/json" };
    const broken = await raw({
      method: "POST",
      path: "/v1/memories",
      headers: json,
      body: `{"slot":"bad/json","content":"token ${secret}`,
    });
    expectProblem(broken, 422, "validation_failed", [secret]);

    for (const [contentType, body] of [
      ["application/x-www-form-urlencoded", `slot=bad%2Fform&content=${secret}`],
      ["text/plain", `slot: bad/text, content: ${secret}`],
      [
        "multipart/form-data; boundary=x",
        `--x\r\nContent-Disposition: form-data; name="c"\r\n\r\n${secret}\r\n--x--`,
      ],
    ] as const) {
      const answer = await raw({
        method: "POST",
        path: "/v1/memories",
        headers: { ...auth, "content-type": contentType },
        body,
      });
      expectProblem(answer, 415, "unsupported_media_type", [secret]);
    }
    const untyped = await raw({
      method: "POST",
      path: "/v1/memories",
      headers: auth,
      body: `{"x":"${secret}"}`,
    });
    expectProblem(untyped, 415, "unsupported_media_type", [secret]);
  });

  it("keeps a refused DELETE's reason and a bad If-Match out of the answer", async () => {
    const id = await createMemory("bad/delete");
    const refused = await raw({
      method: "DELETE",
      path: `/v1/memories/${id}?dryRun=true&reason=${encodeURIComponent(`leaked ${secret}`)}`,
      headers: auth,
    });
    const problem = expectProblem(refused, 412, "precondition_required", [secret]);
    expect(problem.instance).toBe(`/v1/memories/${id}`);

    const badVersion = await raw({
      method: "PATCH",
      path: `/v1/memories/${id}`,
      headers: { ...auth, "content-type": "application/json", "If-Match": `"${secret}"` },
      body: JSON.stringify({ content: "changed" }),
    });
    expectProblem(badVersion, 422, "validation_failed", [secret]);
  });
});

describe("headers", () => {
  it("sends nosniff on every answer and no-store on every answer that carries memories", async () => {
    const id = await createMemory("headers/no-store");
    const answers = {
      health: await raw({ method: "GET", path: "/healthz" }),
      unauthenticated: await raw({ method: "GET", path: "/v1/status" }),
      badUrl: await raw({ method: "GET", path: "/v1/memories/%zz", headers: auth }),
      read: await raw({ method: "GET", path: `/v1/memories/${id}?consistency=strong`, headers: auth }),
      search: await raw({ method: "GET", path: "/v1/memories?q=memory", headers: auth }),
      list: await raw({ method: "GET", path: "/v1/memories", headers: auth }),
      context: await raw({ method: "GET", path: "/v1/context?task=headers", headers: auth }),
      history: await raw({ method: "GET", path: `/v1/memories/${id}/history`, headers: auth }),
      mcp: await raw(mcpInitialize({ host: "127.0.0.1" })),
    };
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.headers["x-content-type-options"], name).toBe("nosniff");
    }
    for (const name of ["read", "search", "list", "context", "history", "mcp"] as const) {
      expect(answers[name].status, `${name}: ${answers[name].text}`).toBe(200);
      expect(answers[name].headers["cache-control"], name).toBe("no-store");
    }
  });
});

/** An MCP initialize request, as a client opening a session sends it, with the given Host. */
function mcpInitialize({ host }: { host: string }) {
  return {
    method: "POST",
    path: "/mcp",
    headers: {
      ...auth,
      Host: host,
      "content-type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "host-test", version: "1" },
      },
    }),
  };
}

describe("the Host of /mcp", () => {
  it("refuses a name it is not configured for and takes loopback, IP addresses and configured names", async () => {
    const { port } = new URL(stack.baseUrl);
    const refused = await raw(mcpInitialize({ host: `rebound.example.net:${port}` }));
    expectProblem(refused, 403, "forbidden", ["rebound.example.net"]);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "10.20.30.40", "cairn.example.com"]) {
      const answer = await raw(mcpInitialize({ host }));
      expect(answer.status, `${host}: ${answer.text}`).toBe(200);
    }
    // REST is not a browser's target: only /mcp checks the Host.
    const rest = await raw({
      method: "GET",
      path: "/v1/status",
      headers: { ...auth, Host: "rebound.example.net" },
    });
    expect(rest.status).toBe(200);
  });
});

describe("failed authentication", () => {
  it("throttles an address after too many wrong keys with 429 and Retry-After, and no other address", async () => {
    const from = (address: string, key: string) =>
      raw({
        method: "GET",
        path: "/v1/status",
        headers: { Authorization: `Bearer ${key}`, "X-Forwarded-For": address },
      });
    for (let i = 0; i < 3; i += 1) {
      const wrong = await from("203.0.113.7", `cairn_wrong-key-number-${i}-0123456789abcdef`);
      expectProblem(wrong, 401, "unauthenticated", ["wrong-key-number"]);
    }
    const throttled = await from("203.0.113.7", "cairn_wrong-key-number-3-0123456789abcdef");
    expectProblem(throttled, 429, "rate_limited", ["wrong-key-number"]);
    expect(Number(throttled.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // Until the window ends even a right key from there waits; elsewhere it works.
    expect((await from("203.0.113.7", adminKey)).status).toBe(429);
    expect((await from("203.0.113.8", adminKey)).status).toBe(200);
  });
});
