import {
  limits,
  MemoryChangesSchema,
  MemoryInputSchema,
  type Status,
  WriteResultSchema,
} from "@cairn/contracts";
import { z } from "zod";
import type { Operations } from "../../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";
import {
  IdParams,
  ListResponseSchema,
  ReadQuery,
  ReadResponseSchema,
  readOptions,
  sendWrite,
  splitCsv,
  writeHeaders,
} from "../schemas.ts";
import { ListQuery } from "./proposals.ts";

export function handoffRoutes(ops: Operations): RouteSpec[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/handoffs",
      operationId: "openHandoff",
      summary: "Open a handoff: work in progress for whoever comes next",
      tag: "handoffs",
      body: MemoryInputSchema,
      success: { status: 201, description: "Opened", schema: WriteResultSchema, headers: writeHeaders },
      errors: [403, 409],
      handler: async ({ caller, body, reply }) =>
        sendWrite(reply, await ops.write(caller, "handoff.open", { handoff: body }), 201),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/handoffs",
      operationId: "listHandoffs",
      summary: "Handoffs (open by default), newest first",
      tag: "handoffs",
      query: ListQuery,
      success: { status: 200, description: "Handoffs", schema: ListResponseSchema },
      handler: async ({ caller, query }) =>
        ops.list(
          caller,
          "handoff",
          {
            query: query.q,
            status: (splitCsv(query.status) as Status[] | undefined) ?? ["active"],
            limit: query.limit,
          },
          readOptions(query),
        ),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/handoffs/{id}",
      operationId: "getHandoff",
      summary: "Read a handoff; ETag is its version",
      tag: "handoffs",
      params: IdParams,
      query: ReadQuery,
      success: {
        status: 200,
        description: "The handoff",
        schema: ReadResponseSchema,
        headers: { ETag: "its version" },
      },
      errors: [404],
      handler: async ({ caller, params, query, reply }) => {
        const result = await ops.read(caller, { id: params.id, tier: "handoff" }, readOptions(query));
        reply.header("ETag", `"${result.document.version}"`);
        return result;
      },
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/handoffs/{id}",
      operationId: "updateHandoff",
      summary: "Record progress on a handoff (If-Match)",
      tag: "handoffs",
      params: IdParams,
      body: MemoryChangesSchema,
      ifMatch: true,
      success: { status: 200, description: "Updated", schema: WriteResultSchema, headers: writeHeaders },
      errors: [403, 404],
      handler: async ({ caller, params, body, ifMatch, reply }) =>
        sendWrite(
          reply,
          await ops.write(caller, "handoff.update", {
            id: params.id,
            expectedVersion: ifMatch!,
            changes: body,
          }),
        ),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/handoffs/{id}/complete",
      operationId: "completeHandoff",
      summary: "Close a handoff whose work is done (If-Match)",
      tag: "handoffs",
      params: IdParams,
      body: z.object({ summary: z.string().max(limits.reasonMaxChars).nullable().optional() }).strict(),
      ifMatch: true,
      success: { status: 200, description: "Completed", schema: WriteResultSchema, headers: writeHeaders },
      errors: [403, 404],
      handler: async ({ caller, params, body, ifMatch, reply }) =>
        sendWrite(
          reply,
          await ops.write(caller, "handoff.complete", {
            id: params.id,
            expectedVersion: ifMatch!,
            summary: body.summary ?? null,
          }),
        ),
    }),
  ];
}
