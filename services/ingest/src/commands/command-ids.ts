import { createHash } from "node:crypto";

/** A UUID (version 5 layout) derived from a name, so a retried command gets the same ids. */
export function uuidFromName(...parts: string[]): string {
  const hash = createHash("sha1").update(parts.join("\u0000")).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id a write reports for a stream: the uuid in its name (a tenant's stream: one derived from the tenant). */
export function idOfStream(streamId: string): string {
  const id = streamId.slice(streamId.indexOf("-") + 1);
  return streamId.startsWith("tenant-") ? uuidFromName("cairn-tenant", id) : id;
}
