export type { BusOptions } from "./connect-bus.ts";
export { connectBus } from "./connect-bus.ts";
export type { ConsumerLabels } from "./consumer-metrics.ts";
export { countDeadLetter, countDelivery, watchProjectionConsumer } from "./consumer-metrics.ts";
export {
  decodeEventMessage,
  ensureEventStream,
  eventDuplicateWindowMs,
  eventHeaderNames,
} from "./ensure-event-stream.ts";
export type { RequestOptions, ServeOptions } from "./rpc.ts";
export { call, serve } from "./rpc.ts";
