import type { Logger } from "@cairn/telemetry";
import { errors, type NatsConnection, nkeyAuthenticator } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { type BusCredentials, busCredentialsFromEnv } from "./bus-credentials.ts";
import { busInboxPrefix } from "./bus-permissions.ts";

export type BusOptions = {
  /** A NATS URL, or the URLs of a cluster's servers comma-separated (any one of them will do). */
  url: string;
  name: string;
  logger?: Logger;
  /** How long to keep trying the first connection before giving up (ms). */
  connectTimeoutMs?: number;
  /**
   * Who connects: a service passes what its validated configuration holds, `null` connects
   * without credentials. Left out, the environment's (`CAIRN_NATS_USER` and its seed) are
   * used, so the command line's tools connect as the operator they are configured as.
   */
  credentials?: BusCredentials | null;
};

/** The servers of `CAIRN_NATS_URL`: one URL, or several comma-separated (a NATS cluster). */
export function natsServers(url: string): string[] {
  return url
    .split(",")
    .map((server) => server.trim())
    .filter((server) => server !== "");
}

/**
 * Connects to NATS and keeps reconnecting forever: a service outlives a NATS restart.
 * The first connection is retried too, so services can start before NATS is up. With
 * credentials it authenticates with the identity's nkey and takes its replies on the
 * identity's own inboxes (the only ones its permissions let it subscribe to).
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const credentials =
    options.credentials === undefined ? busCredentialsFromEnv(process.env) : options.credentials;
  const nc = await connect({
    // Any listed server will do; a cluster tells the client about the others once connected.
    servers: natsServers(options.url),
    name: options.name,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    timeout: options.connectTimeoutMs ?? 20_000,
    pingInterval: 10_000,
    // Otherwise every request and JetStream publish captures a stack trace up front, for an
    // error that almost never comes: the largest CPU cost of a request on the client side.
    // Our errors name the subject anyway (`no answer on <subject> in time`).
    noAsyncTraces: true,
    ...(credentials
      ? {
          authenticator: nkeyAuthenticator(new TextEncoder().encode(credentials.seed)),
          inboxPrefix: busInboxPrefix(credentials.user),
        }
      : {}),
  }).catch((error: unknown) => {
    if (!(error instanceof errors.AuthorizationError)) throw error;
    const who = credentials ? `the bus identity ${credentials.user}` : "a client without credentials";
    throw new Error(
      `NATS at ${options.url} refused ${who}: set CAIRN_NATS_USER and CAIRN_NATS_NKEY_SEED ` +
        "(or CAIRN_NATS_NKEY_SEED_FILE) to an identity it knows (locally, .data/nats-auth/)",
      { cause: error },
    );
  });
  const logger = options.logger;
  if (logger) {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === "disconnect") logger.warn({ server: status.server }, "nats disconnected");
        else if (status.type === "reconnect") logger.info({ server: status.server }, "nats reconnected");
        else if (status.type === "error") logger.error({ err: status.error }, "nats error");
      }
    })();
  }
  return nc;
}
