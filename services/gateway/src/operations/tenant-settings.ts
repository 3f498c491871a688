// A tenant's settings as recorded (the fold of its `tenant-<tenant>` stream, read from the log
// like the event timeline): for admins in full, on every surface (REST, MCP, the console); for
// everyone in status as a summary (version, when and by whom they last changed, which are set,
// the workflow lock). Changing them is the ingest command `tenant.change_settings`, sent like
// any other write.
import { CairnError, streamIdFor } from "@cairn/contracts";
import { readStream } from "@cairn/event-store";
import { foldTenantSettings, type TenantSettingsChange } from "@cairn/memory-model";
import type pg from "pg";
import { requireAdmin } from "../auth/role-checks.ts";
import type { Caller } from "./caller.ts";
import type { OperationsDeps } from "./operations-deps.ts";

export type RecordedTenantSettings = {
  /** The fields ever set, as last set; a field not listed takes its default. */
  settings: TenantSettingsChange;
  /** The settings stream's version: 0 before any change. */
  version: number;
  changedAt: string | null;
  changedBy: string | null;
};

export type TenantSettingsReader = (tenant: string) => Promise<RecordedTenantSettings>;

export function createTenantSettingsReader(pool: pg.Pool): TenantSettingsReader {
  return async (tenant) => {
    const events = await readStream(pool, streamIdFor("tenant", tenant)).catch((cause: unknown) => {
      throw new CairnError("unavailable", "the tenant's settings could not be read", {
        hint: "retry shortly",
        cause,
      });
    });
    const { settings, version } = foldTenantSettings(events);
    const last = events.at(-1);
    return {
      settings,
      version,
      changedAt: last?.meta.recordedAt ?? null,
      changedBy: last?.meta.actor ?? null,
    };
  };
}

function readerOf(deps: OperationsDeps): TenantSettingsReader {
  if (deps.tenantSettings) return deps.tenantSettings;
  throw new CairnError("unavailable", "this gateway cannot read the tenant's settings", {
    hint: "use a gateway connected to the database",
  });
}

/** The settings in full: admins only. */
export async function readTenantSettings(
  deps: OperationsDeps,
  caller: Caller,
): Promise<RecordedTenantSettings> {
  requireAdmin(caller.principal, "read the tenant's settings");
  return readerOf(deps)(caller.principal.tenant);
}

export type TenantSettingsSummary = {
  version: number;
  changedAt: string | null;
  changedBy: string | null;
  /** The settings changed from their defaults (their names). */
  set: string[];
  /** The workflow lock while it is in force (null once it expired). */
  workflowLock: { reason: string; expiresAt: string } | null;
};

/** What status shows every key: no values but the lock, which decides whether writes go through. */
export async function tenantSettingsSummary(
  deps: OperationsDeps,
  caller: Caller,
): Promise<TenantSettingsSummary | null> {
  if (!deps.tenantSettings) return null;
  const recorded = await deps.tenantSettings(caller.principal.tenant).catch(() => null);
  if (!recorded) return null;
  const { settings, version, changedAt, changedBy } = recorded;
  return {
    version,
    changedAt,
    changedBy,
    set: Object.keys(settings)
      .filter((k) => settings[k as keyof TenantSettingsChange] !== undefined)
      .sort(),
    workflowLock:
      settings.workflowLock && Date.parse(settings.workflowLock.expiresAt) > Date.now()
        ? settings.workflowLock
        : null,
  };
}
