import { readFileSync } from "node:fs";
import { createServer } from "node:net";

// Ports are picked below the kernel's ephemeral range: a port from bind(0) could be handed to an
// outgoing connection while a server is down between kill() and restart(), which must come
// back on the same port. Outside that range only another freePort() caller can take it.
const lowestPortTried = 10_000;

function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const parsed = Number(low);
    return Number.isInteger(parsed) && parsed > lowestPortTried + 1000 ? parsed : 32_768;
  } catch {
    return 32_768;
  }
}

function tryListen(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(undefined));
    server.listen({ port, host, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/** A TCP port on `host` (default 127.0.0.1) that nothing listens on right now. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const high = ephemeralRangeStart();
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const candidate = lowestPortTried + Math.floor(Math.random() * (high - lowestPortTried));
    const port = await tryListen(candidate, host);
    if (port !== undefined) return port;
  }
  const port = await tryListen(0, host);
  if (port === undefined) throw new Error(`No free TCP port on ${host}`);
  return port;
}
