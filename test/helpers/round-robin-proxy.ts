// One address in front of several copies of the gateway, as a load balancer without any
// affinity: each request goes to the next copy in turn, whatever session or client it belongs
// to, and the proxy notes which copy answered it.
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";

export type ProxiedRequest = {
  /** Index of the copy that answered, in the order the targets were given. */
  copy: number;
  method: string;
  path: string;
  status: number;
  /** The request's Mcp-Session-Id, or the one its answer gave. */
  sessionId: string | undefined;
};

export type RoundRobinProxy = {
  url: string;
  served: ProxiedRequest[];
  close: () => Promise<void>;
};

export async function startRoundRobinProxy(targets: readonly string[]): Promise<RoundRobinProxy> {
  const served: ProxiedRequest[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    const copy = next % targets.length;
    next += 1;
    const target = new URL(targets[copy] as string);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const header = req.headers["mcp-session-id"] ?? answer.headers["mcp-session-id"];
        served.push({
          copy,
          method: req.method ?? "GET",
          path: req.url ?? "/",
          status: answer.statusCode ?? 0,
          sessionId: Array.isArray(header) ? header[0] : header,
        });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
