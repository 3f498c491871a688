// The `cluster { … }` part every node of a NATS cluster shares: the route credentials and the
// routes to its peers (infra/compose/nats/nats-cluster.conf includes it). Routes carry every
// message between the servers, each identity's included, past the permissions clients have: a
// server that could join without credentials would read and publish anything. So a node takes
// routes only with the password, and presents it on the routes it opens (NATS reads an explicit
// route's credentials from its URL, not from the `authorization` block).
import { randomBytes } from "node:crypto";

/** The user every node presents on its routes. */
export const natsRouteUser = "cairn-route";

const routeAddressPattern = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?:(\d{1,5})$/;
const routePasswordPattern = /^[0-9a-f]{32,}$/;

/** A route list or password the cluster configuration cannot be written with. */
export class ClusterRoutesError extends Error {
  override readonly name = "ClusterRoutesError";
  readonly code = "cluster_routes_invalid" as const;
}

/** A new route password: hex, so it sits in a URL and in nats.conf without quoting rules. */
export function createRoutePassword(): string {
  return randomBytes(32).toString("hex");
}

/** Checks `host:port` route addresses (the peers' cluster ports, e.g. `nats-1:6222`). */
export function parseRouteAddresses(list: string): string[] {
  const routes = list
    .split(",")
    .map((route) => route.trim())
    .filter((route) => route !== "");
  if (routes.length === 0)
    throw new ClusterRoutesError("no cluster routes given: list host:port, comma-separated");
  for (const route of routes) {
    const port = Number(routeAddressPattern.exec(route)?.[1] ?? Number.NaN);
    if (!(port >= 1 && port <= 65535)) {
      throw new ClusterRoutesError(
        `not a route address: ${JSON.stringify(route)} (expected host:port, e.g. nats-1:6222)`,
      );
    }
  }
  return routes;
}

/** nats.conf text for inside a node's `cluster { … }` block. */
export function natsClusterRoutesConfig(options: { password: string; routes: readonly string[] }): string {
  if (!routePasswordPattern.test(options.password)) {
    throw new ClusterRoutesError(
      "the route password must be at least 32 hex digits (createRoutePassword makes one)",
    );
  }
  const routes = parseRouteAddresses(options.routes.join(","));
  const credentials = `${natsRouteUser}:${options.password}`;
  return [
    "# Route credentials and the routes to every node of the cluster (a node skips the route to",
    "# itself). Written by services/lib/bus/src/bus-auth-files.ts; it holds a secret.",
    "authorization {",
    `  user: ${JSON.stringify(natsRouteUser)}`,
    `  password: ${JSON.stringify(options.password)}`,
    "}",
    "routes: [",
    ...routes.map((route) => `  ${JSON.stringify(`nats-route://${credentials}@${route}`)}`),
    "]",
    "",
  ].join("\n");
}
