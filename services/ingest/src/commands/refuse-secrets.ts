import { CairnError, streamIdFor } from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";
import { findSecretInFields, stringFields } from "../domain/secrets.ts";
import { evolveTenant, initialTenantState } from "../domain/tenant-stream.ts";

const notScanned = new Set(["principal", "token", "correlationId", "idempotencyKey"]);

/** The allow-list itself holds values that look like secrets: that is what it is for. */
const allowListField = "settings.secretAllowList";

/** The tenant's allow-list of secret-detection false positives, from its settings stream. */
export async function loadSecretAllowList(store: EventStore, tenant: string): Promise<readonly string[]> {
  const events = await store.readStream(streamIdFor("tenant", tenant));
  return events.reduce(evolveTenant, initialTenantState).settings.secretAllowList ?? [];
}

/**
 * Refuses a command that carries a credential in any of its text fields (content, and every
 * label: slot, title, tags, aliases, keys, source, project, episode, reasons and notes),
 * before anything reaches the log. What the tenant allow-listed passes; the allow-list is
 * read only when something was found, so a clean write costs no read. The error names the
 * field, the kind of secret and where it is, never the secret itself.
 */
export async function refuseSecrets(
  command: Record<string, unknown>,
  allowList: () => Promise<readonly string[]>,
): Promise<void> {
  const fields = Object.entries(command)
    .filter(([key]) => !notScanned.has(key))
    .flatMap(([key, value]) => [...stringFields(value, key)])
    .filter(([path]) => path !== allowListField && !path.startsWith(`${allowListField}[`));
  let finding = findSecretInFields(fields);
  if (!finding) return;
  const allow = await allowList();
  if (allow.length > 0) finding = findSecretInFields(fields, { allow });
  if (!finding) return;
  throw new CairnError(
    "secret_detected",
    `${finding.field} contains what looks like ${finding.description} (characters ${finding.start}–${finding.end}); nothing was stored`,
    {
      hint: "remove the secret, or refer to it by where it is kept (for example 'the deploy key in the team vault'), and write again; an admin can allow-list a false positive in the tenant's settings (secretAllowList)",
      details: { field: finding.field, kind: finding.kind, start: finding.start, end: finding.end },
    },
  );
}
