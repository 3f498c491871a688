import {
  HistoryReplySchema,
  IdSchema,
  type Kind,
  limits,
  MemoryChangesSchema,
  MemoryInputSchema,
  type Status,
  TimestampSchema,
  WriteResultSchema,
} from "@cairn/contracts";
import { z } from "zod";
import type { Operations } from "../../operations/create-operations.ts";
import { createRecordRoute, versionedWriteRoute, versionHeader } from "../record-routes.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";
import {
  asOfQuery,
  IdParams,
  ReadQuery,
  ReadResponseSchema,
  readOptions,
  readQueryShape,
  SearchQuery,
  SearchResponseSchema,
  sendWrite,
  splitCsv,
  TwoStepQuery,
  twoStep,
  twoStepBodyShape,
  twoStepOfBody,
  WriteOrPlanSchema,
  writeHeaders,
} from "../schemas.ts";

const reason = z.string().max(limits.reasonMaxChars).nullable().optional();

const memories = { tier: "memory", tag: "memories" } as const;

export function memoryRoutes(ops: Operations): RouteSpec[] {
  return [
    createRecordRoute(memories, {
      operationId: "createMemory",
      summary: "Create a confirmed memory",
      outcome: "Created",
      command: "memory.create",
    }),
    defineRoute({
      method: "GET",
      path: "/v1/memories",
      operationId: "searchMemories",
      summary: "Search memories (or list the newest without q)",
      tag: "memories",
      query: SearchQuery,
      success: { status: 200, description: "Best first", schema: SearchResponseSchema },
      handler: async ({ caller, query }) => {
        const options = readOptions(query);
        const status = splitCsv(query.status) as Status[] | undefined;
        if (query.q === undefined) {
          const { items, position } = await ops.list(
            caller,
            "memory",
            { status, limit: query.limit, asOf: query.asOf },
            options,
          );
          return {
            results: items.map((document) => ({ document, score: 0 })),
            ranking: "search_order",
            position,
          };
        }
        const result = await ops.search(
          caller,
          {
            query: query.q,
            mode: query.mode,
            kind: splitCsv(query.kind) as Kind[] | undefined,
            status,
            tags: splitCsv(query.tags),
            project: query.project,
            agent: query.author,
            limit: query.limit,
            includeExpired: query.includeExpired === "true",
            asOf: query.asOf,
            explain: query.explain === "true",
          },
          options,
        );
        return {
          ...result,
          results: result.results.map((r) => ({
            document: r.document,
            score: r.score,
            ...(r.explanation ? { explanation: r.explanation } : {}),
          })),
        };
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/memories/resolve-conflict",
      operationId: "resolveConflict",
      summary: "Keep one of two conflicting memories (two steps: dryRun, then token)",
      tag: "memories",
      body: z
        .object({
          keepId: IdSchema,
          otherId: IdSchema,
          action: z.enum(["supersede", "archive", "delete"]),
          reason,
          ...twoStepBodyShape,
        })
        .strict(),
      success: { status: 200, description: "The plan (dry run) or the result", schema: WriteOrPlanSchema },
      errors: [403, 404, 409, 412],
      handler: async ({ write, body, reply }) => {
        const outcome = await write("memory.resolve_conflict", {
          keepId: body.keepId,
          otherId: body.otherId,
          action: body.action,
          reason: body.reason ?? null,
          ...twoStepOfBody(body),
        });
        return sendWrite(reply, outcome);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/memories/{id}",
      operationId: "getMemory",
      summary: "Read a memory (any tier) with its links; ETag is its version",
      tag: "memories",
      params: IdParams,
      query: z
        .object({
          viaKey: z
            .string()
            .min(1)
            .max(200)
            .optional()
            .describe("the key this read came through (association)"),
          asOf: asOfQuery,
          ...readQueryShape,
        })
        .strict(),
      success: {
        status: 200,
        description: "The memory",
        schema: ReadResponseSchema,
        headers: versionHeader,
      },
      errors: [404],
      handler: async ({ caller, params, query, reply }) => {
        const options = readOptions(query);
        const result =
          query.viaKey === undefined
            ? await ops.read(caller, { id: params.id, asOf: query.asOf }, options)
            : await ops.readMemory(caller, params.id, query.viaKey, options);
        reply.header("ETag", `"${result.document.version}"`);
        return result;
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/memories/{id}/history",
      operationId: "getMemoryHistory",
      summary: "Every version of a memory, from the log: when, by whom, which event, its text then",
      description:
        "The text of every version is given unless the memory was purged (then `purged` is true and " +
        "no version has text). Read one past state with `GET /v1/memories/{id}?asOf=<position or time>`.",
      tag: "memories",
      params: IdParams,
      query: ReadQuery,
      success: { status: 200, description: "The versions, oldest first", schema: HistoryReplySchema },
      errors: [404],
      handler: ({ caller, params, query }) => ops.history(caller, params.id, readOptions(query)),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/memories/{id}/links",
      operationId: "getMemoryLinks",
      summary: "Links and backlinks of a memory",
      tag: "memories",
      params: IdParams,
      query: ReadQuery,
      success: {
        status: 200,
        description: "Links",
        schema: ReadResponseSchema.pick({ links: true, backlinks: true }),
      },
      errors: [404],
      handler: async ({ caller, params, query }) => {
        const { links, backlinks } = await ops.read(caller, { id: params.id }, readOptions(query));
        return { links, backlinks };
      },
    }),
    versionedWriteRoute(memories, {
      operationId: "updateMemory",
      summary: "Change a memory's fields (If-Match: its version)",
      outcome: "Updated",
      body: MemoryChangesSchema,
      command: "memory.update",
      toCommand: (changes) => ({ changes }),
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/memories/{id}",
      operationId: "deleteMemory",
      summary: "Delete a memory, softly (If-Match; ?dryRun=true, then ?token=)",
      tag: "memories",
      params: IdParams,
      query: TwoStepQuery.extend({ reason: z.string().max(limits.reasonMaxChars).optional() }).strict(),
      ifMatch: true,
      success: { status: 200, description: "The plan (dry run) or the result", schema: WriteOrPlanSchema },
      errors: [403, 404],
      handler: async ({ write, params, query, ifMatch, reply }) => {
        const outcome = await write("memory.delete", {
          id: params.id,
          expectedVersion: ifMatch!,
          reason: query.reason ?? null,
          ...twoStep(query),
        });
        return sendWrite(reply, outcome);
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/memories/{id}/supersede",
      operationId: "supersedeMemory",
      summary: "Replace a memory with a new one (If-Match; dryRun, then token)",
      tag: "memories",
      params: IdParams,
      ifMatch: true,
      body: z
        .object({
          replacement: MemoryInputSchema.extend({ slot: z.string().min(1).optional() }).strict(),
          reason,
          ...twoStepBodyShape,
        })
        .strict(),
      success: { status: 200, description: "The plan (dry run) or the result", schema: WriteOrPlanSchema },
      errors: [403, 404],
      handler: async ({ write, params, body, ifMatch, reply }) => {
        const outcome = await write("memory.supersede", {
          id: params.id,
          expectedVersion: ifMatch!,
          replacement: body.replacement,
          reason: body.reason ?? null,
          ...twoStepOfBody(body),
        });
        return sendWrite(reply, outcome);
      },
    }),
    versionedWriteRoute(memories, {
      action: "invalidate",
      operationId: "invalidateMemory",
      summary: "Record that a memory stopped being true (If-Match)",
      outcome: "Invalidated",
      body: z.object({ invalidAt: TimestampSchema.nullable().optional(), reason }).strict(),
      command: "memory.invalidate",
      toCommand: (body) => ({
        invalidAt: body.invalidAt === undefined ? new Date().toISOString() : body.invalidAt,
        reason: body.reason ?? null,
      }),
    }),
    ...(["verify", "archive", "restore"] as const).map((action) =>
      defineRoute({
        method: "POST",
        path: `/v1/memories/{id}/${action}`,
        operationId: `${action}Memory`,
        summary: {
          verify: "Confirm a memory still holds (If-Match)",
          archive: "Archive a memory (If-Match)",
          restore: "Restore an archived or deleted memory (If-Match)",
        }[action],
        tag: "memories",
        params: IdParams,
        ifMatch: true,
        body: z.object({ reason }).strict(),
        success: { status: 200, description: "Done", schema: WriteResultSchema, headers: writeHeaders },
        errors: [403, 404],
        handler: async ({ write, params, body, ifMatch, reply }) => {
          const target = { id: params.id, expectedVersion: ifMatch! };
          const outcome =
            action === "verify"
              ? await write("memory.verify", { ...target, note: body.reason ?? null })
              : await write(action === "archive" ? "memory.archive" : "memory.restore", {
                  ...target,
                  reason: body.reason ?? null,
                });
          return sendWrite(reply, outcome);
        },
      }),
    ),
  ];
}
