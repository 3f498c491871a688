// The `authorization` block of nats.conf: one nkey user per bus identity with the permissions
// `busPermissions` derives from the catalog. Only public keys go in; a client without a known
// key is refused, and each known one may publish and subscribe only where its list allows.
import { type BusCredentials, createBusKey } from "./bus-credentials.ts";
import { type BusIdentity, busIdentities, busPermissions } from "./bus-permissions.ts";

const quote = (subject: string) => JSON.stringify(subject);

function subjectList(subjects: readonly string[], indent: string): string {
  return `[\n${subjects.map((s) => `${indent}  ${quote(s)}`).join(",\n")}\n${indent}]`;
}

/** nats.conf text for these identities' public keys (every identity needs one). */
export function natsAuthorizationConfig(publicKeys: Record<BusIdentity, string>): string {
  const users = busIdentities.map((identity) => {
    const permissions = busPermissions(identity);
    return [
      `    # ${identity}`,
      "    {",
      `      nkey: ${quote(publicKeys[identity])}`,
      "      permissions: {",
      `        publish: { allow: ${subjectList(permissions.publish, "        ")} }`,
      `        subscribe: { allow: ${subjectList(permissions.subscribe, "        ")} }`,
      ...(permissions.allowResponses ? ["        allow_responses: true"] : []),
      "      }",
      "    }",
    ].join("\n");
  });
  return [
    "# Bus identities and their permissions, derived from the RPC catalog by",
    "# services/lib/bus/src/bus-permissions.ts. Generated: change the code, not this file.",
    "authorization {",
    "  users: [",
    users.join(",\n"),
    "  ]",
    "}",
    "",
  ].join("\n");
}

export type BusAuth = {
  /** The `authorization` block for nats.conf. */
  config: string;
  credentials: Record<BusIdentity, BusCredentials>;
};

/** Fresh keys for every identity, kept in memory (tests start a NATS with them). */
export function generateBusAuth(): BusAuth {
  const keys = Object.fromEntries(busIdentities.map((identity) => [identity, createBusKey()])) as Record<
    BusIdentity,
    ReturnType<typeof createBusKey>
  >;
  const publicKeys = Object.fromEntries(busIdentities.map((i) => [i, keys[i].publicKey])) as Record<
    BusIdentity,
    string
  >;
  const credentials = Object.fromEntries(
    busIdentities.map((i) => [i, { user: i, seed: keys[i].seed }]),
  ) as Record<BusIdentity, BusCredentials>;
  return { config: natsAuthorizationConfig(publicKeys), credentials };
}

/** The environment that makes a service (or the CLI) connect as this identity. */
export function busCredentialsEnv(credentials: BusCredentials): Record<string, string> {
  return { CAIRN_NATS_USER: credentials.user, CAIRN_NATS_NKEY_SEED: credentials.seed };
}
