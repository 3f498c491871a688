// What the gateway package offers the rest of Cairn: the service, and the stdio relay that
// `pnpm cairn mcp` runs.

export { createApiKey, listApiKeys, openKeyDatabase, revokeApiKey } from "./auth/key-admin.ts";
export type { GatewayEnv } from "./env.ts";
export { gatewayEnvSchema } from "./env.ts";
export type { GatewayServiceOptions } from "./gateway-service.ts";
export { createGatewayService } from "./gateway-service.ts";
export { runStdioBridge } from "./mcp/stdio-bridge.ts";
export { defaultRerankCandidates } from "./operations/operations-deps.ts";
