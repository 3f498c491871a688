// Tenant streams (`tenant-<tenant>`): settings, changed in part. Only what differs is recorded.
import { CairnError, type CairnEvent, type StoredEvent } from "@cairn/contracts";
import { evolveTenantSettings, type TenantSettingsChange } from "@cairn/memory-model";
import { compileTenantAllowList } from "./secrets.ts";

export type { TenantSettingsChange };
export type TenantState = { settings: TenantSettingsChange };

export const initialTenantState: TenantState = { settings: {} };

export function evolveTenant(state: TenantState, stored: StoredEvent): TenantState {
  return { settings: evolveTenantSettings(state.settings, stored) };
}

// A value no false positive of one tenant equals: an entry that lets it through (`.*`, `.+`,
// `\S+`) would switch secret detection off rather than allow a value.
const arbitrarySecret = "Zq8vK2mN7xR4tL9wB3cH6jF1dS5gP0yE";

function allowsAnyValue(entry: string): boolean {
  const allowed = compileTenantAllowList([entry]);
  return allowed("") || allowed(arbitrarySecret);
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
  for (const [i, entry] of (change.secretAllowList ?? []).entries()) {
    if (allowsAnyValue(entry)) {
      throw new CairnError("validation_failed", `secretAllowList entry ${i} would let any value through`, {
        hint: "list the exact false positive, or a regular expression that matches only it and its kind (for example ^test-fixture-[0-9]+$)",
        details: { field: `settings.secretAllowList[${i}]` },
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
