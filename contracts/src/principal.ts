import { z } from "zod";

/** Tenant ids are subject-safe tokens: they appear in NATS subjects and Redis keys. */
export const TenantIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "a tenant id is 1-63 lowercase letters, digits, '-' or '_'");
export const AgentIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/, "an agent id is 1-128 letters, digits, '.', '_', '@' or '-'");

export const roles = ["agent", "reviewer", "admin"] as const;
export const RoleSchema = z.enum(roles);
export type Role = z.infer<typeof RoleSchema>;

/**
 * Who is asking, as authenticated by the gateway. Services take tenant and visibility from
 * here, never from request fields. A primary agent sees every agent's private memories in
 * its tenant; others see their own plus team and global ones.
 */
export const PrincipalSchema = z
  .object({
    tenant: TenantIdSchema,
    agent: AgentIdSchema,
    role: RoleSchema,
    primary: z.boolean(),
  })
  .strict();
export type Principal = z.infer<typeof PrincipalSchema>;
