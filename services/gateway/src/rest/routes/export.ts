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
import { hintForSurface } from "../../retries.ts";
import { asCairnError, logIfInternal } from "../problem.ts";
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
        "and handoff: tier, status, content, every version, links, keys, validity, provenance; then an end line " +
        '`{"end":true,"records":N,"complete":true}`. A stream that stopped early (a store went away after the ' +
        'first page) ends with `"complete":false` and the error; one with no end line was cut off. The input of ' +
        "`pnpm cairn import --from cairn` and `POST /v1/import?from=cairn`.",
      tag: "export",
      query: z.object({ scope: ScopeSchema.optional().describe("only memories of this scope") }).strict(),
      success: { status: 200, description: "JSON Lines" },
      handler: async ({ caller, query, reply, request }) => {
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
        // Past this point the status is sent: a failure of a later page ends the stream with an
        // end line saying it is not complete, and why (a whole export ends with `complete: true`).
        const lines = cairnExportLines(header, records(ops, caller, query.scope, first), {
          onError: (error) => {
            logIfInternal(request, error, caller.principal);
            const cairn = asCairnError(error);
            request.log.warn({ code: cairn.code }, "export stream stopped early");
            const hint = hintForSurface(cairn.hint, "rest") ?? "export again shortly";
            return { code: cairn.code, message: cairn.message, hint };
          },
        });
        return reply.send(Readable.from(lines));
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
