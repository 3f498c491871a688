// `GET /v1/export`: what the key may see as Cairn's JSON Lines, streamed a page at a time (a
// header line, then one record per memory, proposal and handoff), the file `pnpm cairn
// export` writes and `pnpm cairn import --from cairn` reads.
import { Readable } from "node:stream";
import {
  type CairnExportHeader,
  type CairnExportRecord,
  cairnExportFormat,
  cairnExportVersion,
  ScopeSchema,
} from "@cairn/contracts";
import { cairnExportLines } from "@cairn/portability";
import { z } from "zod";
import type { Caller } from "../../operations/caller.ts";
import type { Operations } from "../../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";

const pageSize = 200;

export function exportRoutes(ops: Operations): RouteSpec[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/export",
      operationId: "exportMemories",
      summary: "What the key may see as Cairn JSON Lines (application/x-ndjson), streamed",
      description:
        "A header line (format, version, tenant, scope, time), then one export record per memory, proposal " +
        "and handoff: tier, status, content, every version, links, keys, validity, provenance. The input of " +
        "`pnpm cairn import --from cairn`.",
      tag: "export",
      query: z.object({ scope: ScopeSchema.optional().describe("only memories of this scope") }).strict(),
      success: { status: 200, description: "JSON Lines" },
      handler: async ({ caller, query, reply }) => {
        // The first page is read before answering: an outage is a 503, not a cut stream.
        const first = await ops.exportPage(caller, { after: 0, limit: pageSize, ...scoped(query.scope) });
        const header: CairnExportHeader = {
          format: cairnExportFormat,
          version: cairnExportVersion,
          exportedAt: new Date().toISOString(),
          tenant: caller.principal.tenant,
          scope: query.scope ?? null,
        };
        reply
          .code(200)
          .header("content-type", "application/x-ndjson; charset=utf-8")
          .header("content-disposition", `attachment; filename="${caller.principal.tenant}.jsonl"`);
        return reply.send(Readable.from(cairnExportLines(header, records(ops, caller, query.scope, first))));
      },
    }),
  ];
}

function scoped(scope: z.infer<typeof ScopeSchema> | undefined) {
  return scope ? { scope } : {};
}

async function* records(
  ops: Operations,
  caller: Caller,
  scope: z.infer<typeof ScopeSchema> | undefined,
  first: { records: CairnExportRecord[]; next: number | null },
): AsyncGenerator<CairnExportRecord> {
  let page = first;
  for (;;) {
    yield* page.records;
    if (page.next === null) return;
    page = await ops.exportPage(caller, { after: page.next, limit: pageSize, ...scoped(scope) });
  }
}
