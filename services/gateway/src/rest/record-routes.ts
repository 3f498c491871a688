// The routes the stored tiers share (memories, proposals, handoffs): create, list, read, and a
// write at the version read (`If-Match`). Each builder holds its route's shape once; a tier's
// route file gives the words (operation id, summary, the success response) and the command.
import {
  type IngestCommandName,
  type MemoryInput,
  MemoryInputSchema,
  type Status,
  type Tier,
  WriteResultSchema,
} from "@cairn/contracts";
import { z } from "zod";
import type { CommandInput } from "../backend/cairn-backend.ts";
import type { Operations } from "../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "./route-spec.ts";
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
} from "./schemas.ts";

/** A tier's routes: under `/v1/<tag>`, listed in the OpenAPI tag of the same name. */
export type RecordCollection<T extends Tier = Tier> = { tier: T; tag: string };

/** The commands that create a record of tier `T`; they take the new record under the tier's name. */
type CreateCommand<T extends Tier> = {
  [N in IngestCommandName]: T extends keyof CommandInput<N> ? N : never;
}[IngestCommandName];

type RouteWords = {
  operationId: string;
  summary: string;
  /** The description of the success response. */
  outcome: string;
};

/** A route of a tier: the words from the tier's route file, the rest from the builder. */
function recordRoute<P, Q, B>(
  tag: string,
  words: RouteWords,
  route: Omit<RouteSpec<P, Q, B>, "operationId" | "summary" | "tag">,
): RouteSpec {
  return defineRoute({ ...route, operationId: words.operationId, summary: words.summary, tag });
}

const ListQuery = z
  .object({
    q: z.string().min(1).max(4000).optional(),
    status: z.string().optional().describe("comma-separated statuses"),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    ...readQueryShape,
  })
  .strict();

/** `POST /v1/<tag>`: a new record from a memory's fields; 201 with the write's headers. */
export function createRecordRoute<T extends Tier>(
  { tier, tag }: RecordCollection<T>,
  spec: RouteWords & { command: CreateCommand<T> },
): RouteSpec {
  // `CreateCommand<T>` takes the record under the tier's name, which TypeScript cannot follow
  // through a computed key.
  const toCommand = (body: MemoryInput) => ({ [tier]: body }) as Partial<CommandInput<CreateCommand<T>>>;
  return recordRoute(tag, spec, {
    method: "POST",
    path: `/v1/${tag}`,
    body: MemoryInputSchema,
    success: { status: 201, description: spec.outcome, schema: WriteResultSchema, headers: writeHeaders },
    errors: [403, 409],
    handler: async ({ write, body, reply }) =>
      sendWrite(reply, await write(spec.command, toCommand(body)), 201),
  });
}

/** `GET /v1/<tag>`: the tier's records, newest first, in `status` unless the query names others. */
export function listRecordsRoute(
  ops: Operations,
  { tier, tag }: RecordCollection,
  spec: RouteWords & { status: Status[] },
): RouteSpec {
  return recordRoute(tag, spec, {
    method: "GET",
    path: `/v1/${tag}`,
    query: ListQuery,
    success: { status: 200, description: spec.outcome, schema: ListResponseSchema },
    handler: async ({ caller, query }) =>
      ops.list(
        caller,
        tier,
        {
          query: query.q,
          status: (splitCsv(query.status) as Status[] | undefined) ?? spec.status,
          limit: query.limit,
        },
        readOptions(query),
      ),
  });
}

/** The header a read answers with: the version a later write passes in `If-Match`. */
export const versionHeader = { ETag: "its version" };

/** `GET /v1/<tag>/{id}`: one record of the tier; its version is the ETag. */
export function readRecordRoute(
  ops: Operations,
  { tier, tag }: RecordCollection,
  spec: RouteWords,
): RouteSpec {
  return recordRoute(tag, spec, {
    method: "GET",
    path: `/v1/${tag}/{id}`,
    params: IdParams,
    query: ReadQuery,
    success: { status: 200, description: spec.outcome, schema: ReadResponseSchema, headers: versionHeader },
    errors: [404],
    handler: async ({ caller, params, query, reply }) => {
      const result = await ops.read(caller, { id: params.id, tier }, readOptions(query));
      reply.header("ETag", `"${result.document.version}"`);
      return result;
    },
  });
}

/**
 * A write to one record at the version in `If-Match`: `PATCH /v1/<tag>/{id}` without an
 * action, `POST /v1/<tag>/{id}/<action>` with one.
 */
export function versionedWriteRoute<B, N extends IngestCommandName>(
  { tag }: RecordCollection,
  spec: RouteWords & {
    action?: string;
    body: z.ZodType<B>;
    command: N;
    /** The command's input besides the id and the expected version. */
    toCommand: (body: B) => Partial<CommandInput<N>>;
  },
): RouteSpec {
  return recordRoute(tag, spec, {
    method: spec.action === undefined ? "PATCH" : "POST",
    path: spec.action === undefined ? `/v1/${tag}/{id}` : `/v1/${tag}/{id}/${spec.action}`,
    params: IdParams,
    body: spec.body,
    ifMatch: true,
    success: { status: 200, description: spec.outcome, schema: WriteResultSchema, headers: writeHeaders },
    errors: [403, 404],
    handler: async ({ write, params, body, ifMatch, reply }) =>
      sendWrite(
        reply,
        await write(spec.command, { id: params.id, expectedVersion: ifMatch!, ...spec.toCommand(body) }),
      ),
  });
}
