// `memory_settings_update` (admins): change some of the tenant's settings at the version read
// (the If-Match of `PATCH /v1/settings`). It is the ingest command `tenant.change_settings`,
// recorded in the tenant's stream, so every service applies it from the log.
import { ingestCommandSchemas, isCairnError } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { requireAdmin } from "../../auth/role-checks.ts";
import { withIdempotencyKey } from "../../retries.ts";
import { writeAnnotations } from "../tool-annotations.ts";
import type { ToolDeps } from "../tool-deps.ts";
import { idempotencyKeyArg } from "../tool-inputs.ts";
import { runTool, toolError } from "../tool-result.ts";
import { writeOutcomeResult } from "../write-outcome.ts";

const SettingsChangeSchema = ingestCommandSchemas["tenant.change_settings"].shape.settings;

export function registerMemorySettingsUpdateTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_settings_update",
    {
      title: "Change the tenant's settings (admins)",
      description:
        "Admins only. Change some of the tenant's settings, given the version memory_settings_read returned. " +
        "Each field given replaces that setting as a whole (read it first to keep what it holds); fields left " +
        "out stay as they are. A change made since that version is refused: read again and reapply.",
      inputSchema: {
        settings: SettingsChangeSchema.describe(
          "the settings to change: rankingWeights, retrieval, skipPatterns, synonyms, workflowLock, maintenance, secretAllowList",
        ),
        version: z
          .number()
          .int()
          .nonnegative()
          .describe("the settings' version you read (0 before any change)"),
        idempotency_key: idempotencyKeyArg,
      },
      annotations: writeAnnotations({ idempotent: true }),
    },
    ({ settings, version, idempotency_key: idempotencyKey }) =>
      runTool(
        async () => {
          requireAdmin(deps.caller.principal, "change the tenant's settings");
          try {
            const outcome = await deps.ops.write(
              deps.caller,
              "tenant.change_settings",
              withIdempotencyKey({ settings, expectedVersion: version }, idempotencyKey),
            );
            return writeOutcomeResult(outcome, "Changed the tenant's settings", "memory_settings_update");
          } catch (error) {
            if (!isCairnError(error) || error.code !== "version_conflict") throw error;
            const current = (error.details as { currentVersion?: unknown } | undefined)?.currentVersion;
            const result = toolError(error);
            const hint = `the settings changed since version ${version}: call memory_settings_read${typeof current === "number" ? ` (now version ${current})` : ""}, reapply your change to what they hold now, and call again with the new version`;
            return {
              ...result,
              content: [{ type: "text", text: `error version_conflict: ${error.message}\nhint: ${hint}` }],
              structuredContent: {
                error: { code: error.code, message: error.message, hint, details: error.details },
              },
            };
          }
        },
        { idempotencyKey },
      ),
  );
}
