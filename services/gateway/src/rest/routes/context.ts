import { MemoryDocumentSchema } from "@cairn/contracts";
import { z } from "zod";
import type { Operations } from "../../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";
import { readOptions, readQueryShape } from "../schemas.ts";

const ContextResponseSchema = z.object({
  memories: z.array(
    z.object({ document: MemoryDocumentSchema, score: z.number(), truncatedTo: z.number().nullable() }),
  ),
  more: z.array(z.object({ id: z.string(), slot: z.string(), title: z.string() })),
  conflicts: z.array(
    z.object({
      ids: z.array(z.string()),
      slots: z.array(z.string()),
      reason: z.enum(["same_name", "shared_alias", "overlapping_topic"]),
      detail: z.string(),
      hint: z.string(),
    }),
  ),
  pending: z.object({ proposals: z.number().int().nullable(), handoffs: z.number().int().nullable() }),
  budgetTokens: z.number().int(),
  usedTokens: z.number().int(),
  ranking: z.enum(["ranked", "search_order"]),
  position: z.number().int().nonnegative(),
});

export function contextRoutes(ops: Operations): RouteSpec[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/context",
      operationId: "getContext",
      summary: "The first layer for a task: relevant memories within a token budget, conflicts, open work",
      tag: "context",
      query: z
        .object({
          task: z.string().min(1).max(4000).describe("the task, in a sentence or two"),
          budgetTokens: z.coerce.number().int().min(100).max(32_000).optional(),
          project: z.string().optional(),
          ...readQueryShape,
        })
        .strict(),
      success: { status: 200, description: "Context", schema: ContextResponseSchema },
      handler: async ({ caller, query }) =>
        ops.context(
          caller,
          { task: query.task, budgetTokens: query.budgetTokens, project: query.project },
          readOptions(query),
        ),
    }),
  ];
}
