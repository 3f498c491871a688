// A bus identity's credentials: its name and the seed of its NATS nkey. The server holds only
// the public keys (nats.conf has no secret in it); each service holds its own seed.
//
//   CAIRN_NATS_USER             the identity: ingest, search, ranking, maintenance, gateway, admin
//   CAIRN_NATS_NKEY_SEED        its nkey seed (`SU…`), or
//   CAIRN_NATS_NKEY_SEED_FILE   a file holding it (compose mounts one per service)
//
// Neither set: no credentials, for a NATS without authorization (tests, a bare development
// server). One without the other is a configuration error.
import { readFileSync } from "node:fs";
import { nkeys } from "@nats-io/nats-core";

export type BusCredentials = {
  /** The identity's name; it also names the identity's reply inboxes (`busInboxPrefix`). */
  user: string;
  seed: string;
};

export type BusCredentialsEnv = {
  CAIRN_NATS_USER?: string | undefined;
  CAIRN_NATS_NKEY_SEED?: string | undefined;
  CAIRN_NATS_NKEY_SEED_FILE?: string | undefined;
};

/** A new identity's key pair: the seed its service keeps, the public key the server checks. */
export function createBusKey(): { seed: string; publicKey: string } {
  const pair = nkeys.createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}

/** The public key of a user seed; a seed that is not one fails with what it is. */
export function busPublicKey(seed: string): string {
  let pair: ReturnType<typeof nkeys.fromSeed>;
  try {
    pair = nkeys.fromSeed(new TextEncoder().encode(seed));
  } catch (cause) {
    throw new Error("the NATS nkey seed is not a valid seed (expected `SU…`)", { cause });
  }
  const publicKey = pair.getPublicKey();
  if (!publicKey.startsWith("U")) throw new Error("the NATS nkey seed is not a user seed (expected `SU…`)");
  return publicKey;
}

function readSeedFile(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (cause) {
    throw new Error(`CAIRN_NATS_NKEY_SEED_FILE: cannot read ${path}`, { cause });
  }
}

/** The credentials the environment gives, or null when it gives none. */
export function busCredentialsFromEnv(env: BusCredentialsEnv): BusCredentials | null {
  const user = env.CAIRN_NATS_USER?.trim() || undefined;
  const file = env.CAIRN_NATS_NKEY_SEED_FILE?.trim() || undefined;
  const seed = env.CAIRN_NATS_NKEY_SEED?.trim() || (file ? readSeedFile(file) : undefined);
  if (user === undefined && seed === undefined) return null;
  if (user === undefined || seed === undefined) {
    throw new Error(
      "invalid configuration: CAIRN_NATS_USER and CAIRN_NATS_NKEY_SEED (or CAIRN_NATS_NKEY_SEED_FILE) " +
        "are set together or not at all",
    );
  }
  if (!/^[A-Za-z0-9_-]+$/.test(user)) {
    throw new Error("invalid configuration: CAIRN_NATS_USER is a name of letters, digits, '-' and '_'");
  }
  busPublicKey(seed);
  return { user, seed };
}
