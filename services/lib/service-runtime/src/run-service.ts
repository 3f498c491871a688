import { randomUUID } from "node:crypto";
import { busCredentialsFromEnv, connectBus, serve } from "@cairn/bus";
import {
  type DependencyState,
  type HealthReply,
  healthRpc,
  queueGroup,
  type ServiceName,
} from "@cairn/contracts";
import { createLogger, initMetrics, initTracing, type Logger, type Metrics } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import type { z } from "zod";
import { type BaseEnv, baseEnvSchema, parseSettings } from "./base-env.ts";

export type DependencyCheck = () => Promise<void>;

export type ServiceContext<E extends BaseEnv> = {
  name: ServiceName;
  instance: string;
  env: E;
  logger: Logger;
  nc: NatsConnection;
  metrics: Metrics;
};

export type StartedService = {
  /** Named checks run by the health endpoint (NATS is always checked). */
  checks?: Record<string, DependencyCheck>;
  /** Releases what `start` opened; called once on shutdown. */
  stop?: () => Promise<void>;
};

export type ServiceDefinition<S extends z.ZodType<BaseEnv>> = {
  name: ServiceName;
  envSchema?: S;
  start: (ctx: ServiceContext<z.infer<S>>) => Promise<StartedService>;
};

export type ServiceHandle = {
  name: ServiceName;
  instance: string;
  nc: NatsConnection;
  health: () => Promise<HealthReply>;
  stop: () => Promise<void>;
};

const version = process.env.CAIRN_VERSION ?? "0.1.0";

const defaultMetricsPorts: Record<ServiceName, number | undefined> = {
  ingest: 9464,
  search: 9465,
  ranking: 9466,
  maintenance: 9467,
  gateway: undefined,
};

async function timed(check: DependencyCheck): Promise<DependencyState> {
  const started = performance.now();
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("check timed out after 2000 ms")), 2000)),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/**
 * Starts a service: validated config, logger, tracing, a NATS connection that survives
 * restarts, and a `cairn.health.<name>` responder reporting each dependency's state.
 */
export async function startService<S extends z.ZodType<BaseEnv>>(
  definition: ServiceDefinition<S>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServiceHandle> {
  const schema = (definition.envSchema ?? baseEnvSchema) as S;
  const settings = parseSettings(schema, env, { service: definition.name });
  const config = settings.config as z.infer<S>;
  const instance = config.CAIRN_INSTANCE ?? `${definition.name}-${randomUUID().slice(0, 8)}`;
  const logger = createLogger(definition.name, config.CAIRN_LOG_LEVEL).child({ instance });
  // Tracing reads OTEL_* and CAIRN_TRACE_FILE, which the configuration file may hold too.
  const tracing = initTracing({ serviceName: `cairn-${definition.name}`, env: settings.given });
  const metrics = initMetrics({ serviceName: `cairn-${definition.name}`, env: settings.given });
  const metricsPort = config.CAIRN_METRICS_PORT ?? defaultMetricsPorts[definition.name];
  if (metricsPort !== undefined && metricsPort !== "off") {
    const { port } = await metrics.listen(metricsPort);
    logger.info({ port }, "metrics served at /metrics");
  }
  const startedAt = Date.now();
  const credentials = busCredentialsFromEnv(config);
  const nc = await connectBus({ url: config.CAIRN_NATS_URL, name: instance, logger, credentials });
  if (credentials) logger.info({ identity: credentials.user }, "connected to nats with bus credentials");
  if (settings.file) logger.info({ file: settings.file }, "settings read from the configuration file");
  let started: StartedService;
  try {
    started = await definition.start({ name: definition.name, instance, env: config, logger, nc, metrics });
    // Started means answering: the subscriptions the service made have reached the server.
    await nc.flush();
  } catch (error) {
    await nc.close();
    throw error;
  }
  const checks: Record<string, DependencyCheck> = {
    nats: async () => {
      await nc.flush();
    },
    ...started.checks,
  };
  const health = async (): Promise<HealthReply> => {
    const entries = await Promise.all(
      Object.entries(checks).map(async ([dep, check]) => [dep, await timed(check)] as const),
    );
    const dependencies = Object.fromEntries(entries);
    return {
      service: definition.name,
      instance,
      version,
      uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
      ok: entries.every(([, state]) => state.ok),
      dependencies,
    };
  };
  const healthSub = serve(nc, healthRpc(definition.name), health, {
    queue: queueGroup(definition.name),
    logger,
  });
  logger.info({ version }, "service started");
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      logger.info("service stopping");
      healthSub.unsubscribe();
      try {
        await started.stop?.();
      } finally {
        if (!nc.isClosed()) await nc.drain().catch(() => nc.close());
        await metrics.shutdown();
        // Spans still batched for OTLP go out before the process exits (the provider itself
        // stays: services started in one process share it).
        await tracing.provider.forceFlush().catch(() => undefined);
      }
      logger.info("service stopped");
    })();
    return stopping;
  };
  return { name: definition.name, instance, nc, health, stop };
}

/**
 * Entry point for a service's `main.ts`: starts it and stops it gracefully on SIGTERM or
 * SIGINT (a second signal, or 10 s without finishing, exits at once).
 */
export async function runService<S extends z.ZodType<BaseEnv>>(
  definition: ServiceDefinition<S>,
): Promise<void> {
  const fallback = createLogger(definition.name);
  let handle: ServiceHandle;
  try {
    handle = await startService(definition);
  } catch (error) {
    fallback.fatal({ err: error }, "service failed to start");
    process.exit(1);
  }
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(130);
    signalled = true;
    fallback.info({ signal }, "shutting down");
    const force = setTimeout(() => {
      fallback.error("shutdown took longer than 10 s; exiting");
      process.exit(1);
    }, 10_000);
    force.unref();
    handle.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        fallback.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  // The connection reconnects forever through outages; it closes for good only when the
  // server keeps refusing the credentials. Exit then, so the supervisor (compose,
  // ./scripts/start) starts the service again, with backoff, until they are accepted.
  void handle.nc.closed().then((error) => {
    if (signalled) return;
    fallback.fatal({ err: error }, "the NATS connection closed for good");
    process.exit(1);
  });
}
