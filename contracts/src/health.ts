import { z } from "zod";

export const DependencyStateSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().optional(),
  error: z.string().optional(),
});
export type DependencyState = z.infer<typeof DependencyStateSchema>;

export const HealthReplySchema = z.object({
  service: z.string(),
  instance: z.string(),
  version: z.string(),
  uptimeSeconds: z.number(),
  ok: z.boolean(),
  dependencies: z.record(z.string(), DependencyStateSchema),
});
export type HealthReply = z.infer<typeof HealthReplySchema>;
