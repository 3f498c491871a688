// A tenant's settings stream (`tenant-<tenant>`): each `tenant.settings_changed` records the
// fields it changed; the settings are the last value of each field. A field never set takes
// its default where it is read.
import type { EventData, StoredEvent } from "@cairn/contracts";

export type TenantSettingsChange = EventData<"tenant.settings_changed">;

/** The settings after one more event of the stream. */
export function evolveTenantSettings(
  settings: TenantSettingsChange,
  stored: StoredEvent,
): TenantSettingsChange {
  if (stored.type !== "tenant.settings_changed") throw new Error(`not a tenant event: ${stored.type}`);
  return { ...settings, ...(stored.data as TenantSettingsChange) };
}

/** The settings a stream's events give, and its version (0: never changed). */
export function foldTenantSettings(events: readonly StoredEvent[]): {
  settings: TenantSettingsChange;
  version: number;
} {
  return { settings: events.reduce(evolveTenantSettings, {}), version: events.at(-1)?.version ?? 0 };
}
