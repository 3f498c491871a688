import type { Logger } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";

export type BusOptions = {
  url: string;
  name: string;
  logger?: Logger;
  /** How long to keep trying the first connection before giving up (ms). */
  connectTimeoutMs?: number;
};

/**
 * Connects to NATS and keeps reconnecting forever: a service outlives a NATS restart.
 * The first connection is retried too, so services can start before NATS is up.
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: options.url,
    name: options.name,
    reconnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    timeout: options.connectTimeoutMs ?? 20_000,
    pingInterval: 10_000,
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
