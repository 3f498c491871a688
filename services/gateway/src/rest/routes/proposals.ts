import { limits, MemoryChangesSchema } from "@cairn/contracts";
import { z } from "zod";
import type { Operations } from "../../operations/create-operations.ts";
import {
  createRecordRoute,
  listRecordsRoute,
  readRecordRoute,
  versionedWriteRoute,
} from "../record-routes.ts";
import type { RouteSpec } from "../route-spec.ts";

const proposals = { tier: "proposal", tag: "proposals" } as const;

export function proposalRoutes(ops: Operations): RouteSpec[] {
  return [
    createRecordRoute(proposals, {
      operationId: "submitProposal",
      summary: "Propose a memory for review",
      outcome: "In the inbox",
      command: "proposal.submit",
    }),
    listRecordsRoute(ops, proposals, {
      operationId: "listProposals",
      summary: "The inbox: proposals (pending by default), newest first",
      outcome: "Proposals",
      status: ["pending"],
    }),
    readRecordRoute(ops, proposals, {
      operationId: "getProposal",
      summary: "Read a proposal; ETag is its version",
      outcome: "The proposal",
    }),
    versionedWriteRoute(proposals, {
      operationId: "reviseProposal",
      summary: "Revise a pending proposal (If-Match)",
      outcome: "Revised",
      body: MemoryChangesSchema,
      command: "proposal.revise",
      toCommand: (changes) => ({ changes }),
    }),
    versionedWriteRoute(proposals, {
      action: "promote",
      operationId: "promoteProposal",
      summary: "Reviewers: make a proposal a confirmed memory (If-Match)",
      outcome: "Promoted",
      body: z.object({ changes: MemoryChangesSchema.optional() }).strict(),
      command: "proposal.promote",
      toCommand: (body) => (body.changes ? { changes: body.changes } : {}),
    }),
    versionedWriteRoute(proposals, {
      action: "reject",
      operationId: "rejectProposal",
      summary: "Reviewers: reject a proposal (If-Match)",
      outcome: "Rejected",
      body: z.object({ reason: z.string().max(limits.reasonMaxChars).nullable().optional() }).strict(),
      command: "proposal.reject",
      toCommand: (body) => ({ reason: body.reason ?? null }),
    }),
  ];
}
