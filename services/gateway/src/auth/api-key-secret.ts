import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { apiKeyPrefix } from "@cairn/contracts";

/** A new key: `cairn_` and 256 random bits in base64url. */
export function generateApiKey(): string {
  return `${apiKeyPrefix}${randomBytes(32).toString("base64url")}`;
}

/**
 * Keys carry 256 random bits, so a fast unsalted hash is enough: there is nothing to
 * guess from a leaked hash that is cheaper than guessing the key.
 */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** What a list shows of a key: its first characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, apiKeyPrefix.length + 6);
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** `CAIRN_ADMIN_KEY` and keys given to the CLI must be long enough to be secrets. */
export function isAcceptableKey(key: string): boolean {
  return key.length >= 24 && key.length <= 200 && /^[\x21-\x7e]+$/.test(key);
}
