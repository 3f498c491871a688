// Bus credentials on disk, for the local infrastructure (infra/local/infra.sh, under .data/)
// and compose (a one-shot job writing into volumes): a seed per identity, created once and
// kept, and the NATS `authorization` block, written again each time from the current catalog.
//
//   <dir>/nats-authorization.conf   public keys and permissions (nats.conf includes it)
//   <dir>/<identity>/nkey.seed      the identity's secret, mode 0600 (compose: one volume each)
//
// and, for a NATS cluster (`clusterRoutes`), what its nodes share:
//
//   <dir>/nats-route.password       the route password, mode 0600, made once and kept
//   <dir>/nats-cluster.conf         route credentials and routes (each node's cluster block includes it)
import { chmod, chown, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { busPublicKey, createBusKey } from "./bus-credentials.ts";
import { type BusIdentity, busIdentities } from "./bus-permissions.ts";
import { natsAuthorizationConfig } from "./nats-authorization.ts";
import { createRoutePassword, natsClusterRoutesConfig, parseRouteAddresses } from "./nats-cluster-routes.ts";

const natsAuthorizationFileName = "nats-authorization.conf";
const routePasswordFileName = "nats-route.password";
const natsClusterFileName = "nats-cluster.conf";

export function busSeedFile(dir: string, identity: BusIdentity): string {
  return join(dir, identity, "nkey.seed");
}

export type WriteBusAuthOptions = {
  /** Who owns the seeds (compose: the services' user), when written as another (root). */
  owner?: { uid: number; gid: number } | undefined;
  /**
   * The cluster ports of a NATS cluster's nodes (`host:port`): also write the route password
   * and the routes every node includes. The password stays with whoever writes (NATS), not `owner`.
   */
  clusterRoutes?: readonly string[] | undefined;
};

export type BusAuthFiles = {
  configFile: string;
  /** Written when `clusterRoutes` were given. */
  clusterConfigFile: string | undefined;
  /** The identities whose seeds were made now (the others were kept). */
  created: BusIdentity[];
  createdRoutePassword: boolean;
};

async function readSecret(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Writes `text` to `path` whole or not at all (NATS may read it at any moment). */
async function replaceFile(path: string, text: string, mode: number): Promise<void> {
  const partial = `${path}.${process.pid}.tmp`;
  await writeFile(partial, text, { mode });
  await rename(partial, path);
}

/**
 * Ensures every identity has a seed and writes the authorization block (and, for a cluster,
 * the route password and routes); says what it created.
 */
export async function writeBusAuthFiles(
  dir: string,
  options: WriteBusAuthOptions = {},
): Promise<BusAuthFiles> {
  // A bad route list is refused before anything is written.
  const clusterRoutes = options.clusterRoutes && parseRouteAddresses(options.clusterRoutes.join(","));
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const created: BusIdentity[] = [];
  const publicKeys = {} as Record<BusIdentity, string>;
  for (const identity of busIdentities) {
    const file = busSeedFile(dir, identity);
    let seed = await readSecret(file);
    if (seed === undefined) {
      seed = createBusKey().seed;
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      await writeFile(file, `${seed}\n`, { mode: 0o600, flag: "wx" });
      created.push(identity);
    }
    if (options.owner) {
      const { uid, gid } = options.owner;
      await chown(dirname(file), uid, gid);
      await chmod(dirname(file), 0o700);
      await chown(file, uid, gid);
    }
    publicKeys[identity] = busPublicKey(seed);
  }
  const configFile = join(dir, natsAuthorizationFileName);
  await replaceFile(configFile, natsAuthorizationConfig(publicKeys), 0o644);
  if (!clusterRoutes)
    return { configFile, clusterConfigFile: undefined, created, createdRoutePassword: false };

  // Every node must present the same password, so it is made once; the routes are written anew.
  const passwordFile = join(dir, routePasswordFileName);
  let password = await readSecret(passwordFile);
  const createdRoutePassword = password === undefined;
  if (password === undefined) {
    password = createRoutePassword();
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600, flag: "wx" });
  }
  const clusterConfigFile = join(dir, natsClusterFileName);
  await replaceFile(clusterConfigFile, natsClusterRoutesConfig({ password, routes: clusterRoutes }), 0o600);
  return { configFile, clusterConfigFile, created, createdRoutePassword };
}
