export type { BusAuthFiles, WriteBusAuthOptions } from "./bus-auth-files.ts";
export { busSeedFile, writeBusAuthFiles } from "./bus-auth-files.ts";
export type { BusCredentials } from "./bus-credentials.ts";
export { busCredentialsFromEnv, createBusKey } from "./bus-credentials.ts";
export type { BusIdentity } from "./bus-permissions.ts";
export { busInboxPrefix } from "./bus-permissions.ts";
export type { BusOptions } from "./connect-bus.ts";
export { connectBus } from "./connect-bus.ts";
export type { ConsumerLabels } from "./consumer-metrics.ts";
export { countDeadLetter, countDelivery, watchProjectionConsumer } from "./consumer-metrics.ts";
export type { EventStreamOptions } from "./ensure-event-stream.ts";
export {
  EventStreamReplicasError,
  ensureEventStream,
  eventDuplicateWindowMs,
  eventStreamReplicasSetting,
  isEventStreamReplicasError,
} from "./ensure-event-stream.ts";
export type { BusAuth } from "./nats-authorization.ts";
export { busCredentialsEnv, generateBusAuth } from "./nats-authorization.ts";
export {
  ClusterRoutesError,
  createRoutePassword,
  natsClusterRoutesConfig,
  natsRouteUser,
  parseRouteAddresses,
} from "./nats-cluster-routes.ts";
export { decodeRelayedEvents, eventHeaderNames } from "./relayed-events.ts";
export type { RequestOptions, ServeOptions } from "./rpc.ts";
export { call, serve } from "./rpc.ts";
