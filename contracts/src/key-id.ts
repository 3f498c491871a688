import { createHash } from "node:crypto";

// Key ids are name-based: the key a label stands for has the same id wherever it is
// derived (ingest's `key.linked`, ranking's keys from memory documents), with no lookup.

export function normaliseKeyLabel(label: string): string {
  return label.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").trim();
}

/** An RFC 4122 version-5 style UUID of tenant and normalised label. */
export function keyIdFor(tenant: string, label: string): string {
  const hash = createHash("sha1")
    .update(`cairn-key\u0000${tenant}\u0000${normaliseKeyLabel(label)}`)
    .digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
