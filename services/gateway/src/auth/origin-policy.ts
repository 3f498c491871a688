/**
 * DNS-rebinding protection for `/mcp`: a browser page on a foreign origin must not reach a
 * local gateway. Requests without `Origin` (CLI and desktop clients) pass; so do loopback
 * origins, unless a list is configured, which then replaces that default.
 */
export type OriginPolicy = (origin: string | undefined) => boolean;

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function createOriginPolicy(allowed: readonly string[]): OriginPolicy {
  const exact = new Set(allowed.map((o) => o.trim().replace(/\/+$/, "").toLowerCase()).filter(Boolean));
  return (origin) => {
    if (origin === undefined || origin === "") return true;
    const normalised = origin.trim().replace(/\/+$/, "").toLowerCase();
    if (exact.size > 0) return exact.has("*") || exact.has(normalised);
    try {
      const url = new URL(normalised);
      return (url.protocol === "http:" || url.protocol === "https:") && loopbackHosts.has(url.hostname);
    } catch {
      return false;
    }
  };
}
