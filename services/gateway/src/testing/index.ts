export { routesOf } from "../http-server.ts";
export type { GatewayHarness, HarnessOptions, KeyName } from "./gateway-harness.ts";
export { startGatewayHarness, teamKeys } from "./gateway-harness.ts";
export { createInMemoryMcpServer } from "./in-memory-mcp-server.ts";
