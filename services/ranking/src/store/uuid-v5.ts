import { createHash } from "node:crypto";

/** Namespace of key ids derived from labels (a fixed random UUID). */
export const keyIdNamespace = "6f1d3b8e-2c4a-4f7e-9a51-0b3c7d2e8f14";

/** RFC 4122 name-based UUID (SHA-1): the same name always gives the same id, on every replay. */
export function uuidV5(name: string, namespace: string = keyIdNamespace): string {
  const ns = Buffer.from(namespace.replaceAll("-", ""), "hex");
  const hash = createHash("sha1").update(ns).update(name, "utf8").digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
