// `POST /v1/import?from=<format>`: a file in any format `pnpm cairn import` reads, sent as the
// request body, read by the same importers (@cairn/portability) and written through ingest as
// the calling key, so admission rules apply to every record. A dry run unless `apply=true`. A
// Markdown vault comes as a zip, a tar or a gzipped tar (or one .md file); a file of another
// format may come gzipped. The same file imported again by the same key adds nothing.
import { CairnError, ScopeSchema } from "@cairn/contracts";
import {
  type ArchiveLimits,
  ImportSummarySchema,
  importFormatDescriptions,
  importFormats,
  importSourceOf,
  importSummary,
  planImport,
} from "@cairn/portability";
import { z } from "zod";
import type { Operations } from "../../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";

export type ImportLimits = {
  /** Largest file accepted as the body (413 past it). */
  maxBytes: number;
} & ArchiveLimits;

const ImportQuery = z
  .object({
    from: z
      .enum(importFormats)
      .describe(importFormats.map((f) => `\`${f}\`: ${importFormatDescriptions[f]}`).join("; ")),
    apply: z
      .enum(["true", "false"])
      .default("false")
      .describe("`true` writes the records; otherwise a dry run reads the file and says what it would write"),
    scope: ScopeSchema.optional().describe("scope of records whose file names none (default team)"),
    project: z.string().min(1).max(120).optional().describe("project of every imported memory"),
    name: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("the file's name, used in the summary's `sourceRef`s (default `upload`)"),
  })
  .strict();

const ImportResponseSchema = ImportSummarySchema.extend({
  /** The highest log position the import's writes reached: pass it as `afterPosition` to read them. */
  position: z.number().int().positive().nullable().optional(),
});

export function importRoutes(ops: Operations, limits: ImportLimits): RouteSpec[] {
  return [
    defineRoute({
      method: "POST",
      path: "/v1/import",
      operationId: "importMemories",
      summary:
        "Import a file of memories (Cairn, mem0, server-memory, a Markdown vault, keymem); a dry run first",
      description:
        "The file is the request body (`curl --data-binary @file`). Without `apply=true` it is read and the " +
        "summary says what would be written (records by tier, and what could not be read). With it, every record " +
        "is an ingest command sent as this key: secrets are refused and reported, content already stored is " +
        "skipped and reported with the memory that holds it. Each command carries an idempotency key made from " +
        "the record and the key's principal, so the same file imported again adds nothing (`alreadyImported`); " +
        "the route takes no `Idempotency-Key` of its own. A file whose records cannot be read at all is `422` " +
        "(`details.reason`: `unreadable_file`, `not_an_archive`, `unreadable_archive`, `archive_not_expected`, " +
        "`no_file`); one over the size limit, or an archive that unpacks past it, is `413`.",
      tag: "import",
      query: ImportQuery,
      upload: {
        maxBytes: limits.maxBytes,
        mediaTypes: [
          "application/x-ndjson",
          "application/json",
          "text/markdown",
          "application/zip",
          "application/gzip",
          "application/x-tar",
          "application/octet-stream",
        ],
        description:
          "The file. `cairn` and `server-memory`: JSON Lines; `mem0` and `keymem`: JSON; `markdown`: a zip, tar " +
          "or gzipped tar of the vault's folder (or one .md file). Any of them may be gzipped. The media type is " +
          "not read: the bytes say what the file is.",
      },
      idempotent: false,
      success: { status: 200, description: "The import's summary", schema: ImportResponseSchema },
      errors: [403],
      handler: async ({ caller, query, body, reply }) => {
        const bytes = body as Buffer;
        const source = importSourceOf(query.from, bytes, limits);
        const plan = planImport(query.from, source, {
          sourceName: query.name ?? "upload",
          ...(query.scope ? { scope: query.scope } : {}),
          ...(query.project ? { project: query.project } : {}),
        });
        if (query.apply !== "true") return importSummary(plan, null);
        // A client that goes away stops the import before its next record; what was written
        // stays, and the same request again picks up where it stopped (the rest is new).
        const stopped = new AbortController();
        const onClose = () => {
          if (reply.raw.writableFinished) return;
          stopped.abort(
            new CairnError("validation_failed", "the client closed the request before the import ended"),
          );
        };
        reply.raw.on("close", onClose);
        try {
          const { position, ...outcome } = await ops.importRecords(caller, plan, { signal: stopped.signal });
          return { ...importSummary(plan, outcome), position };
        } finally {
          reply.raw.off("close", onClose);
        }
      },
    }),
  ];
}
