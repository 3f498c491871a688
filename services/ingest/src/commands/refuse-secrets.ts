import { CairnError } from "@cairn/contracts";
import { findSecretInFields, stringFields } from "../domain/secrets.ts";

const notScanned = new Set(["principal", "token", "correlationId", "idempotencyKey"]);

/**
 * Refuses a command that carries a credential in any of its text fields, before anything
 * reaches the log. The error names the field, the kind of secret and where it is, never
 * the secret itself.
 */
export function refuseSecrets(command: Record<string, unknown>): void {
  const fields = Object.entries(command)
    .filter(([key]) => !notScanned.has(key))
    .flatMap(([key, value]) => [...stringFields(value, key)]);
  const finding = findSecretInFields(fields);
  if (!finding) return;
  throw new CairnError(
    "secret_detected",
    `${finding.field} contains what looks like ${finding.description} (characters ${finding.start}–${finding.end}); nothing was stored`,
    {
      hint: "remove the secret, or refer to it by where it is kept (for example 'the deploy key in the team vault'), and write again",
      details: { field: finding.field, kind: finding.kind, start: finding.start, end: finding.end },
    },
  );
}
