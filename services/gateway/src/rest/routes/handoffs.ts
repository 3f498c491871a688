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

const handoffs = { tier: "handoff", tag: "handoffs" } as const;

export function handoffRoutes(ops: Operations): RouteSpec[] {
  return [
    createRecordRoute(handoffs, {
      operationId: "openHandoff",
      summary: "Open a handoff: work in progress for whoever comes next",
      outcome: "Opened",
      command: "handoff.open",
    }),
    listRecordsRoute(ops, handoffs, {
      operationId: "listHandoffs",
      summary: "Handoffs (open by default), newest first",
      outcome: "Handoffs",
      status: ["active"],
    }),
    readRecordRoute(ops, handoffs, {
      operationId: "getHandoff",
      summary: "Read a handoff; ETag is its version",
      outcome: "The handoff",
    }),
    versionedWriteRoute(handoffs, {
      operationId: "updateHandoff",
      summary: "Record progress on a handoff (If-Match)",
      outcome: "Updated",
      body: MemoryChangesSchema,
      command: "handoff.update",
      toCommand: (changes) => ({ changes }),
    }),
    versionedWriteRoute(handoffs, {
      action: "complete",
      operationId: "completeHandoff",
      summary: "Close a handoff whose work is done (If-Match)",
      outcome: "Completed",
      body: z.object({ summary: z.string().max(limits.reasonMaxChars).nullable().optional() }).strict(),
      command: "handoff.complete",
      toCommand: (body) => ({ summary: body.summary ?? null }),
    }),
  ];
}
