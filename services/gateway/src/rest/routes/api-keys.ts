import { ApiKeyRecordSchema, CreateApiKeyRequestSchema, CreatedApiKeySchema } from "@cairn/contracts";
import type pg from "pg";
import { z } from "zod";
import { createApiKey, listApiKeys, revokeApiKey } from "../../auth/api-key-store.ts";
import type { Authenticator } from "../../auth/authenticator.ts";
import { requireAdmin } from "../../auth/role-checks.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";

/**
 * API key management for admins, limited to their own tenant. (`pnpm cairn keys` does the
 * same with database access, for any tenant.)
 */
export function apiKeyRoutes(pool: pg.Pool, authenticator: Authenticator): RouteSpec[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/api-keys",
      operationId: "createApiKey",
      summary: "Admins: create an API key in their tenant (the key is shown once)",
      tag: "api-keys",
      body: CreateApiKeyRequestSchema.omit({ tenant: true }).strict(),
      description:
        "With an `Idempotency-Key`, a retry creates no second key; as the key is shown only once, the " +
        "retry answers 409 `idempotency_conflict` with the id of the key the first request created.",
      success: { status: 201, description: "The key, shown once", schema: CreatedApiKeySchema },
      errors: [403, 409],
      handler: async ({ caller, body, idempotencyKey }) => {
        requireAdmin(caller.principal, "create API keys");
        return createApiKey(pool, { ...body, tenant: caller.principal.tenant }, undefined, {
          idempotencyKey,
        });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/api-keys",
      operationId: "listApiKeys",
      summary: "Admins: the API keys of their tenant (never the keys themselves)",
      tag: "api-keys",
      query: z.object({ includeRevoked: z.enum(["true", "false"]).optional() }).strict(),
      success: { status: 200, description: "Keys", schema: z.object({ keys: z.array(ApiKeyRecordSchema) }) },
      errors: [403],
      handler: async ({ caller, query }) => {
        requireAdmin(caller.principal, "list API keys");
        const keys = await listApiKeys(pool, {
          tenant: caller.principal.tenant,
          includeRevoked: query.includeRevoked === "true",
        });
        return { keys };
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/api-keys/{id}",
      operationId: "revokeApiKey",
      summary: "Admins: revoke an API key of their tenant",
      tag: "api-keys",
      params: z.object({ id: z.uuid() }),
      success: { status: 200, description: "Revoked", schema: ApiKeyRecordSchema },
      errors: [403, 404],
      handler: async ({ caller, params }) => {
        requireAdmin(caller.principal, "revoke API keys");
        const record = await revokeApiKey(pool, params.id, { tenant: caller.principal.tenant });
        authenticator.clear();
        return record;
      },
    }),
  ];
}
