import { PrincipalSchema } from "@cairn/contracts";
import { z } from "zod";
import type { Operations } from "../../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";

export function statusRoutes(ops: Operations): RouteSpec[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/status",
      operationId: "getStatus",
      summary: "Who this key is, whether the services answer, open work, the tenant's settings in brief",
      tag: "status",
      success: {
        status: 200,
        description: "Status",
        schema: z.object({
          principal: PrincipalSchema,
          services: z.record(z.string(), z.object({ ok: z.boolean() }).loose()),
          ranking: z.enum(["ranked", "search_order"]),
          pending: z.object({
            proposals: z.number().int().nullable(),
            handoffs: z.number().int().nullable(),
          }),
          lastWritePosition: z.number().int().nullable(),
          /** The tenant's settings in brief (null when they cannot be read); admins read them in full at /v1/settings. */
          settings: z
            .object({
              version: z.number().int().nonnegative(),
              changedAt: z.string().nullable(),
              changedBy: z.string().nullable(),
              set: z.array(z.string()),
              workflowLock: z.object({ reason: z.string(), expiresAt: z.string() }).nullable(),
            })
            .nullable(),
          /** The maintenance doctor's verdict for the tenant (null when maintenance does not answer). */
          health: z
            .object({
              status: z.enum(["ok", "warn", "error"]),
              summary: z.string(),
              findings: z.array(
                z.object({
                  code: z.string(),
                  severity: z.string(),
                  count: z.number().int(),
                  fix: z.string(),
                }),
              ),
            })
            .nullable(),
        }),
      },
      handler: async ({ caller }) => ops.status(caller),
    }),
  ];
}
