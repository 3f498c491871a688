// The real servers the fixtures start, without vitest (`infraTest` lives in index.ts): for the
// benchmarks and tools that run outside a test runner.
export { type NatsHandle, type StartNatsOptions, startNats } from "./nats.ts";
export { type NatsClusterHandle, type StartNatsClusterOptions, startNatsCluster } from "./nats-cluster.ts";
export { type PostgresHandle, type StartPostgresOptions, startPostgres } from "./postgres.ts";
export { type RedisHandle, type StartRedisOptions, startRedis } from "./redis.ts";
export { type WaitForOptions, waitFor } from "./wait-for.ts";
