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
  readQueryShape,
  sendWrite,
  splitCsv,
  writeHeaders,
} from "../schemas.ts";

export const ListQuery = z
  .object({
    q: z.string().min(1).max(4000).optional(),
    status: z.string().optional().describe("comma-separated statuses"),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    ...readQueryShape,
  })
  .strict();

export function proposalRoutes(ops: Operations): RouteSpec[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/proposals",
      operationId: "submitProposal",
      summary: "Propose a memory for review",
      tag: "proposals",
      body: MemoryInputSchema,
      success: { status: 201, description: "In the inbox", schema: WriteResultSchema, headers: writeHeaders },
      errors: [403, 409],
      handler: async ({ caller, body, reply }) =>
        sendWrite(reply, await ops.write(caller, "proposal.submit", { proposal: body }), 201),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/proposals",
      operationId: "listProposals",
      summary: "The inbox: proposals (pending by default), newest first",
      tag: "proposals",
      query: ListQuery,
      success: { status: 200, description: "Proposals", schema: ListResponseSchema },
      handler: async ({ caller, query }) =>
        ops.list(
          caller,
          "proposal",
          {
            query: query.q,
            status: (splitCsv(query.status) as Status[] | undefined) ?? ["pending"],
            limit: query.limit,
          },
          readOptions(query),
        ),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/proposals/{id}",
      operationId: "getProposal",
      summary: "Read a proposal; ETag is its version",
      tag: "proposals",
      params: IdParams,
      query: ReadQuery,
      success: {
        status: 200,
        description: "The proposal",
        schema: ReadResponseSchema,
        headers: { ETag: "its version" },
      },
      errors: [404],
      handler: async ({ caller, params, query, reply }) => {
        const result = await ops.read(caller, { id: params.id, tier: "proposal" }, readOptions(query));
        reply.header("ETag", `"${result.document.version}"`);
        return result;
      },
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/proposals/{id}",
      operationId: "reviseProposal",
      summary: "Revise a pending proposal (If-Match)",
      tag: "proposals",
      params: IdParams,
      body: MemoryChangesSchema,
      ifMatch: true,
      success: { status: 200, description: "Revised", schema: WriteResultSchema, headers: writeHeaders },
      errors: [403, 404],
      handler: async ({ caller, params, body, ifMatch, reply }) =>
        sendWrite(
          reply,
          await ops.write(caller, "proposal.revise", {
            id: params.id,
            expectedVersion: ifMatch!,
            changes: body,
          }),
        ),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/proposals/{id}/promote",
      operationId: "promoteProposal",
      summary: "Reviewers: make a proposal a confirmed memory (If-Match)",
      tag: "proposals",
      params: IdParams,
      body: z.object({ changes: MemoryChangesSchema.optional() }).strict(),
      ifMatch: true,
      success: { status: 200, description: "Promoted", schema: WriteResultSchema, headers: writeHeaders },
      errors: [403, 404],
      handler: async ({ caller, params, body, ifMatch, reply }) =>
        sendWrite(
          reply,
          await ops.write(caller, "proposal.promote", {
            id: params.id,
            expectedVersion: ifMatch!,
            ...(body.changes ? { changes: body.changes } : {}),
          }),
        ),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/proposals/{id}/reject",
      operationId: "rejectProposal",
      summary: "Reviewers: reject a proposal (If-Match)",
      tag: "proposals",
      params: IdParams,
      body: z.object({ reason: z.string().max(limits.reasonMaxChars).nullable().optional() }).strict(),
      ifMatch: true,
      success: { status: 200, description: "Rejected", schema: WriteResultSchema, headers: writeHeaders },
      errors: [403, 404],
      handler: async ({ caller, params, body, ifMatch, reply }) =>
        sendWrite(
          reply,
          await ops.write(caller, "proposal.reject", {
            id: params.id,
            expectedVersion: ifMatch!,
            reason: body.reason ?? null,
          }),
        ),
    }),
  ];
}
