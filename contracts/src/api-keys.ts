import { z } from "zod";
import { IdSchema, TimestampSchema } from "./memory.ts";
import { AgentIdSchema, RoleSchema, TenantIdSchema } from "./principal.ts";

/**
 * API keys are owned by the gateway (table `api_keys`): a key maps to a principal. Only a
 * SHA-256 hash of the key is stored; the key itself is shown once, when it is created.
 * Keys look like `cairn_<43 base64url characters>` (256 random bits).
 */
export const apiKeyPrefix = "cairn_";

/** A key as listed (never the key itself): who it authenticates as, and whether it still works. */
export const ApiKeyRecordSchema = z.object({
  id: IdSchema,
  /** The first characters of the key, enough to recognise it in a list. */
  keyPrefix: z.string(),
  tenant: TenantIdSchema,
  agent: AgentIdSchema,
  role: RoleSchema,
  primary: z.boolean(),
  label: z.string().nullable(),
  createdAt: TimestampSchema,
  revokedAt: TimestampSchema.nullable(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecordSchema>;

export const CreateApiKeyRequestSchema = z
  .object({
    tenant: TenantIdSchema,
    agent: AgentIdSchema,
    role: RoleSchema.default("agent"),
    primary: z.boolean().default(false),
    label: z.string().max(200).nullable().default(null),
  })
  .strict();
export type CreateApiKeyRequest = z.input<typeof CreateApiKeyRequestSchema>;

/** The answer to creating a key: the record and, this one time, the key itself. */
export const CreatedApiKeySchema = z.object({ record: ApiKeyRecordSchema, key: z.string() });
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;
