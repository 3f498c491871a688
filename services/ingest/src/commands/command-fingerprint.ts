// What makes a retry the same command: its body as validated (defaults filled in), the
// principal included, in a canonical form (keys sorted), digested. Left out are what only
// traces a request or authorises running it: the correlation id, the idempotency key itself,
// and a destructive command's dry-run token (a fresh dry run of the same plan is the same
// command).
import { createHash } from "node:crypto";

const notPartOfTheBody = new Set(["correlationId", "idempotencyKey", "token", "dryRun"]);

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The digest a retry with the same idempotency key must match. */
export function commandFingerprint(command: Record<string, unknown>): string {
  const body = Object.fromEntries(Object.entries(command).filter(([key]) => !notPartOfTheBody.has(key)));
  return createHash("sha256").update(canonicalJson(body)).digest("base64url");
}
