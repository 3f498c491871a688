// Tenant streams (`tenant-<tenant>`): settings, changed in part. Only what differs is recorded.
import { CairnError, type CairnEvent, type EventData, type StoredEvent } from "@cairn/contracts";

export type TenantSettingsChange = EventData<"tenant.settings_changed">;
export type TenantState = { settings: TenantSettingsChange };

export const initialTenantState: TenantState = { settings: {} };

export function evolveTenant(state: TenantState, stored: StoredEvent): TenantState {
  if (stored.type !== "tenant.settings_changed") throw new Error(`not a tenant event: ${stored.type}`);
  return { settings: { ...state.settings, ...(stored.data as TenantSettingsChange) } };
}

export function decideTenantSettings(state: TenantState, change: TenantSettingsChange): CairnEvent[] {
  for (const [i, pattern] of (change.skipPatterns ?? []).entries()) {
    try {
      new RegExp(pattern, "u");
    } catch (cause) {
      throw new CairnError("validation_failed", `skip pattern ${i} is not a valid regular expression`, {
        hint: "write skip patterns as JavaScript regular expressions (Unicode mode)",
        details: { field: `settings.skipPatterns[${i}]` },
        cause,
      });
    }
  }
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) continue;
    if (JSON.stringify((state.settings as Record<string, unknown>)[key]) !== JSON.stringify(value))
      changed[key] = value;
  }
  if (Object.keys(changed).length === 0) return [];
  return [{ type: "tenant.settings_changed", data: changed as TenantSettingsChange }];
}
