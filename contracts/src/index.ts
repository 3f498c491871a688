export type { CairnErrorOptions, ErrorBody, ErrorCode } from "./errors.ts";
export { CairnError, ErrorBodySchema, ErrorCodeSchema, errorCodes, isCairnError } from "./errors.ts";
export type { DependencyState, HealthReply } from "./health.ts";
export { DependencyStateSchema, HealthReplySchema } from "./health.ts";
export type { RpcReply } from "./rpc.ts";
export { RpcReplySchema, traceHeaderNames } from "./rpc.ts";
export type { BackendServiceName, ServiceName } from "./subjects.ts";
export { backendServiceNames, healthSubject, queueGroup, serviceNames } from "./subjects.ts";
