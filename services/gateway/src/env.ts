import { baseEnvSchema } from "@cairn/service-runtime";
import { z } from "zod";

export const gatewayEnvSchema = baseEnvSchema.extend({
  /** Bound to loopback unless configured: the gateway is the only public surface. */
  CAIRN_HOST: z.string().default("127.0.0.1"),
  CAIRN_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
});
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;
