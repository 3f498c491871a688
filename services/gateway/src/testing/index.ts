export { createCairnBackend } from "../backend/cairn-backend.ts";
export { routesOf } from "../http-server.ts";
export { createRecallRecorder } from "../operations/recall-recorder.ts";
export type { GatewayHarness, HarnessOptions, KeyName } from "./gateway-harness.ts";
export { startGatewayHarness, teamKeys } from "./gateway-harness.ts";
export { createInMemoryMcpServer } from "./in-memory-mcp-server.ts";
