import {
  createDatabasePool,
  createEventStore,
  createMemorySealStore,
  migrateToLatest,
} from "@cairn/event-store";
import type { ServiceDefinition } from "@cairn/service-runtime";
import { loadTokenSecret } from "./commands/load-token-secret.ts";
import { serveIngestCommands } from "./commands/serve-ingest-commands.ts";
import { ingestEnvSchema } from "./env.ts";
import { startRelay } from "./relay/relay-committed-events.ts";

/** The ingest service: commands over NATS, the event log, the relay to JetStream. */
export function createIngestService(): ServiceDefinition<typeof ingestEnvSchema> {
  return ingestService;
}

const ingestService: ServiceDefinition<typeof ingestEnvSchema> = {
  name: "ingest",
  envSchema: ingestEnvSchema,
  async start({ env, nc, logger }) {
    if (env.CAIRN_MIGRATE_ON_START === "1") await migrateToLatest(env.CAIRN_DATABASE_URL);
    const role = env.CAIRN_DB_ROLE || undefined;
    const pool = createDatabasePool(
      {
        connectionString: env.CAIRN_DATABASE_URL,
        role,
        max: env.CAIRN_DB_POOL_SIZE,
        applicationName: "cairn-ingest",
      },
      (error) => logger.warn({ err: error }, "database connection failed"),
    );
    const store = createEventStore(pool);
    const tokenSecret = await loadTokenSecret(pool, env.CAIRN_TOKEN_SECRET);
    const seals = createMemorySealStore(pool);
    const subscriptions = serveIngestCommands(nc, { store, tokenSecret, seals }, logger);
    const relay =
      env.CAIRN_RELAY === "1"
        ? startRelay({
            pool,
            databaseUrl: env.CAIRN_DATABASE_URL,
            databaseRole: role,
            nc,
            logger,
            eventStreamReplicas: env.CAIRN_EVENT_STREAM_REPLICAS,
          })
        : undefined;
    return {
      checks: {
        postgres: async () => void (await pool.query("select 1")),
        ...(relay
          ? {
              relay: async () => {
                const { lastError, active } = relay.status();
                if (active && lastError) throw new Error(`relay: ${lastError}`);
              },
            }
          : {}),
      },
      async stop() {
        // Finish the commands in flight, then stop taking new ones.
        await Promise.all(subscriptions.map((sub) => sub.drain().catch(() => {})));
        await relay?.stop();
        await pool.end();
      },
    };
  },
};
