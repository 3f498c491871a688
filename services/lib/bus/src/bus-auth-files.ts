// Bus credentials on disk, for the local infrastructure (infra/local/infra.sh, under .data/)
// and compose (a one-shot job writing into volumes): a seed per identity, created once and
// kept, and the NATS `authorization` block, written again each time from the current catalog.
//
//   <dir>/nats-authorization.conf   public keys and permissions (nats.conf includes it)
//   <dir>/<identity>/nkey.seed      the identity's secret, mode 0600 (compose: one volume each)
import { chmod, chown, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { busPublicKey, createBusKey } from "./bus-credentials.ts";
import { type BusIdentity, busIdentities } from "./bus-permissions.ts";
import { natsAuthorizationConfig } from "./nats-authorization.ts";

const natsAuthorizationFileName = "nats-authorization.conf";

export function busSeedFile(dir: string, identity: BusIdentity): string {
  return join(dir, identity, "nkey.seed");
}

export type WriteBusAuthOptions = {
  /** Who owns the seeds (compose: the services' user), when written as another (root). */
  owner?: { uid: number; gid: number } | undefined;
};

async function readSeed(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, "utf8")).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Ensures every identity has a seed and writes the authorization block; returns the identities it created. */
export async function writeBusAuthFiles(
  dir: string,
  options: WriteBusAuthOptions = {},
): Promise<{ configFile: string; created: BusIdentity[] }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const created: BusIdentity[] = [];
  const publicKeys = {} as Record<BusIdentity, string>;
  for (const identity of busIdentities) {
    const file = busSeedFile(dir, identity);
    let seed = await readSeed(file);
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
  const partial = `${configFile}.${process.pid}.tmp`;
  await writeFile(partial, natsAuthorizationConfig(publicKeys), { mode: 0o644 });
  await rename(partial, configFile);
  return { configFile, created };
}
