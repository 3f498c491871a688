// Postgres, Redis and NATS for one suite: started together, stopped together (once).
import {
  type NatsHandle,
  type PostgresHandle,
  type RedisHandle,
  startNats,
  startPostgres,
  startRedis,
} from "@cairn/testing";

export type Infrastructure = {
  postgres: PostgresHandle;
  redis: RedisHandle;
  nats: NatsHandle;
  stop: () => Promise<void>;
};

export async function startInfrastructure(): Promise<Infrastructure> {
  const [postgres, redis, nats] = await Promise.all([startPostgres(), startRedis(), startNats()]);
  let stopped: Promise<unknown> | undefined;
  return {
    postgres,
    redis,
    nats,
    stop: async () => {
      stopped ??= Promise.all([postgres.stop(), redis.stop(), nats.stop()]);
      await stopped;
    },
  };
}
