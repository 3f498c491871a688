// A tenant's settings, for its admins: read them as recorded (a field never set takes its
// default), change some of them. The change is the ingest command `tenant.change_settings`, so
// it is validated, recorded in the tenant's stream and applied by every service from the log.
import { CairnError, ingestCommandSchemas, TenantSettingsSchema, WriteResultSchema } from "@cairn/contracts";
import type { z } from "zod";
import { requireAdmin } from "../../auth/role-checks.ts";
import type { Operations } from "../../operations/create-operations.ts";
import { defineRoute, type RouteSpec } from "../route-spec.ts";
import { sendWrite, writeHeaders } from "../schemas.ts";

const SettingsChangeSchema = ingestCommandSchemas["tenant.change_settings"].shape.settings;

/** `If-Match: "<version>"` when given; the settings stream's version is 0 before any change. */
function optionalVersion(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const match = /^(?:W\/)?"?(\d+)"?$/.exec(String(header).trim());
  if (!match) {
    throw new CairnError("validation_failed", 'If-Match must be the settings\' version, e.g. "3"', {
      hint: "send the ETag of GET /v1/settings, or leave If-Match out",
    });
  }
  return Number(match[1]);
}

export function settingsRoutes(ops: Operations): RouteSpec[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/settings",
      operationId: "readSettings",
      summary: "Admins: the tenant's settings as recorded (ETag: their version)",
      description:
        "Ranking weights, retrieval, skip patterns, synonyms, the workflow lock, maintenance schedules " +
        "and the secret allow-list, as last changed; a field not listed takes its default.",
      tag: "settings",
      success: {
        status: 200,
        description: "The settings",
        schema: TenantSettingsSchema.partial(),
        headers: { ETag: "the settings' version (0: never changed)" },
      },
      errors: [403],
      handler: async ({ caller, reply }) => {
        const { settings, version } = await ops.readSettings(caller);
        reply.header("ETag", `"${version}"`);
        return settings;
      },
    }),
    defineRoute({
      method: "PATCH",
      path: "/v1/settings",
      operationId: "changeSettings",
      summary: "Admins: change some of the tenant's settings (If-Match: their version, optional)",
      description:
        "Each field given replaces that setting as a whole; fields left out stay. With If-Match, " +
        "a change made since that version is `409 version_conflict`.",
      tag: "settings",
      body: SettingsChangeSchema,
      success: { status: 200, description: "Changed", schema: WriteResultSchema, headers: writeHeaders },
      errors: [403, 409],
      handler: async ({ caller, body, request, reply, write }) => {
        requireAdmin(caller.principal, "change the tenant's settings");
        const expectedVersion = optionalVersion(request.headers["if-match"]);
        const outcome = await write("tenant.change_settings", {
          settings: body as z.infer<typeof SettingsChangeSchema>,
          ...(expectedVersion === undefined ? {} : { expectedVersion }),
        });
        return sendWrite(reply, outcome);
      },
    }),
  ];
}
