export type { BusOptions } from "./connect-bus.ts";
export { connectBus } from "./connect-bus.ts";
export type { RequestOptions, RpcHandler, ServeRpcOptions } from "./rpc.ts";
export { requestRpc, serveRpc } from "./rpc.ts";
