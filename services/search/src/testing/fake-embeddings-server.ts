// Test support: an HTTP server that speaks the OpenAI `POST /v1/embeddings` wire protocol,
// answering with deterministic vectors (the local embedder's), and that can be told to fail.
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { embedLocally } from "../embedders/local-embedder.ts";

export type FakeEmbeddingsRequest = {
  model: string;
  input: string[];
  dimensions?: number;
  authorization?: string;
};

export type FakeEmbeddingsServer = {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  requests: FakeEmbeddingsRequest[];
  /** The next answers: a status (with an optional Retry-After) instead of embeddings. */
  failNext(count: number, status: number, retryAfter?: string): void;
  /** Every request fails with this status until `heal()`. */
  breakDown(status?: number): void;
  heal(): void;
  close(): Promise<void>;
};

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFakeEmbeddingsServer(
  options: { dimensions?: number } = {},
): Promise<FakeEmbeddingsServer> {
  const dims = options.dimensions ?? 64;
  const requests: FakeEmbeddingsRequest[] = [];
  const failures: { status: number; retryAfter: string | undefined }[] = [];
  let broken: number | undefined;

  const server = createServer(async (req, res) => {
    const text = await body(req);
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      res.writeHead(404).end();
      return;
    }
    const parsed = JSON.parse(text) as { model: string; input: string | string[]; dimensions?: number };
    const input = Array.isArray(parsed.input) ? parsed.input : [parsed.input];
    requests.push({
      model: parsed.model,
      input,
      ...(parsed.dimensions === undefined ? {} : { dimensions: parsed.dimensions }),
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    const failure = broken !== undefined ? { status: broken, retryAfter: undefined } : failures.shift();
    if (failure) {
      res.writeHead(failure.status, {
        "content-type": "application/json",
        ...(failure.retryAfter === undefined ? {} : { "retry-after": failure.retryAfter }),
      });
      res.end(JSON.stringify({ error: { message: "injected failure", type: "server_error" } }));
      return;
    }
    const size = parsed.dimensions ?? dims;
    // Answer out of order, as the protocol allows: clients must use `index`.
    const data = input
      .map((t, index) => ({ object: "embedding", index, embedding: embedLocally(t, size) }))
      .reverse();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        object: "list",
        data,
        model: parsed.model,
        usage: { prompt_tokens: 1, total_tokens: 1 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext(count, status, retryAfter) {
      for (let i = 0; i < count; i += 1) failures.push({ status, retryAfter });
    },
    breakDown(status = 503) {
      broken = status;
    },
    heal() {
      broken = undefined;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
