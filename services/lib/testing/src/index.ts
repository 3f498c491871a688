export {
  InfraStartError,
  isInfraStartError,
  isWaitForTimeoutError,
  type TestingErrorCode,
  testingErrorCodes,
  WaitForTimeoutError,
} from "./errors.ts";
export { freePort } from "./free-port.ts";
export { infraTest } from "./infra-test.ts";
export {
  checkedNatsServerPath,
  defaultNatsServerPath,
  type NatsHandle,
  type StartNatsOptions,
  startNats,
} from "./nats.ts";
export {
  type NatsClusterHandle,
  type NatsClusterNode,
  type StartNatsClusterOptions,
  startNatsCluster,
  streamLeader,
} from "./nats-cluster.ts";
export {
  type DropDatabaseOptions,
  defaultPostgresBinDir,
  type PostgresHandle,
  type StartPostgresOptions,
  startPostgres,
} from "./postgres.ts";
export {
  defaultRediSearchModulePath,
  defaultRedisServerPath,
  type RedisHandle,
  rediSearchModuleArgs,
  type StartRedisOptions,
  startRedis,
} from "./redis.ts";
export { makeUniqueName } from "./unique-name.ts";
export { type WaitForOptions, waitFor } from "./wait-for.ts";
