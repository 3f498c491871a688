import { z } from "zod";
import type { Operations } from "../../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";
import { readOptions, readQueryShape } from "../schemas.ts";

const KeySchema = z.object({ id: z.string().nullable(), label: z.string(), type: z.string().nullable() });

/** The associative graph (Key → Memory → Key). API keys are under /v1/api-keys. */
export function keyRoutes(ops: Operations): RouteSpec[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/keys",
      operationId: "recallKeys",
      summary: "Recall: the keys a question brings to mind (not content)",
      tag: "keys",
      query: z
        .object({
          q: z.string().min(1).max(4000),
          limit: z.coerce.number().int().min(1).max(50).optional(),
          ...readQueryShape,
        })
        .strict(),
      success: {
        status: 200,
        description: "Keys, strongest first",
        schema: z.object({
          keys: z.array(KeySchema.extend({ score: z.number(), memoryCount: z.number().int() })),
          source: z.enum(["ranking", "search"]),
        }),
      },
      handler: async ({ caller, query }) =>
        ops.recall(caller, query.q, query.limit ?? 10, readOptions(query)),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/keys/{key}",
      operationId: "readKey",
      summary: "The memories a key leads to (open one with GET /v1/memories/{id}?viaKey=)",
      tag: "keys",
      params: z.object({ key: z.string().min(1).max(200) }),
      query: z
        .object({ limit: z.coerce.number().int().min(1).max(50).optional(), ...readQueryShape })
        .strict(),
      success: {
        status: 200,
        description: "The key and its memories",
        schema: z.object({
          key: KeySchema,
          memories: z.array(
            z.object({ id: z.string(), slot: z.string(), title: z.string(), weight: z.number().nullable() }),
          ),
          source: z.enum(["ranking", "search"]),
        }),
      },
      errors: [404],
      handler: async ({ caller, params, query }) =>
        ops.readKey(caller, params.key, query.limit ?? 20, readOptions(query)),
    }),
  ];
}
