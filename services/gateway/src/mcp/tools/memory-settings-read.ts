// `memory_settings_read` (admins): the tenant's settings as recorded, the values in force
// (defaults for what was never set) and the version a change must name.
import { defaultTenantSettings } from "@cairn/contracts";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolDeps } from "../tool-deps.ts";
import { runTool, toolResult } from "../tool-result.ts";

export function registerMemorySettingsReadTool(server: McpServer, deps: ToolDeps): void {
  server.registerTool(
    "memory_settings_read",
    {
      title: "Read the tenant's settings (admins)",
      description:
        "Admins only. The tenant's settings: ranking weights, retrieval, skip patterns, synonyms, the workflow " +
        "lock, maintenance schedules and the secret allow-list. `settings` holds what was changed, `effective` " +
        "every value in force (defaults for the rest), `version` what memory_settings_update needs.",
      inputSchema: {},
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      runTool(async () => {
        const recorded = await deps.ops.readSettings(deps.caller);
        const effective = { ...defaultTenantSettings, ...recorded.settings };
        return toolResult(
          { ...recorded, effective },
          `Tenant settings, version ${recorded.version}` +
            (recorded.changedAt
              ? ` (last changed ${recorded.changedAt} by ${recorded.changedBy})`
              : " (never changed)") +
            `.\nChanged from the defaults: ${JSON.stringify(recorded.settings)}\nIn force: ${JSON.stringify(effective)}\n` +
            `To change some, call memory_settings_update with version ${recorded.version}.`,
        );
      }),
  );
}
