// Writes the bus credentials into a directory (see bus-auth-files.ts): a seed per identity,
// kept once made, and the NATS authorization block from the current catalog; with
// --cluster-routes, also the route password and routes the nodes of a NATS cluster share.
// Usage: node write-bus-auth.ts <dir> [--owner <uid>:<gid>] [--cluster-routes <host:port>,…]
import { parseArgs } from "node:util";
import { writeBusAuthFiles } from "./bus-auth-files.ts";
import { ClusterRoutesError, parseRouteAddresses } from "./nats-cluster-routes.ts";

const usage =
  "usage: write-bus-auth.ts <dir> [--owner <uid>:<gid>] [--cluster-routes <host:port>,<host:port>,…]";
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { owner: { type: "string" }, "cluster-routes": { type: "string" } },
});
const [dir] = positionals;
const owner = values.owner?.match(/^(\d+):(\d+)$/);
if (dir === undefined || positionals.length > 1 || (values.owner !== undefined && !owner)) {
  console.error(usage);
  process.exit(2);
}
let clusterRoutes: string[] | undefined;
try {
  clusterRoutes =
    values["cluster-routes"] === undefined ? undefined : parseRouteAddresses(values["cluster-routes"]);
} catch (error) {
  if (!(error instanceof ClusterRoutesError)) throw error;
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
const { configFile, clusterConfigFile, created, createdRoutePassword } = await writeBusAuthFiles(dir, {
  owner: owner ? { uid: Number(owner[1]), gid: Number(owner[2]) } : undefined,
  clusterRoutes,
});
const made = [...created, ...(createdRoutePassword ? ["the route password"] : [])];
console.error(
  `bus credentials in ${dir}: ${made.length > 0 ? `created ${made.join(", ")}; ` : ""}permissions in ${configFile}` +
    (clusterConfigFile ? `; cluster routes (${clusterRoutes?.length}) in ${clusterConfigFile}` : ""),
);
