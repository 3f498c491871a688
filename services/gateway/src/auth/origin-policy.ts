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

/**
 * The `Host` check of `/mcp`, the other half of DNS-rebinding protection: a page that rebinds
 * its own name to this gateway still sends that name as `Host`. So loopback names and IP
 * literals (which no rebinding produces) always pass; a DNS name passes when it is listed
 * (`host` for any port, `host:port` for one) or is the host of an allowed origin. `*` allows
 * every host.
 */
export type HostPolicy = (host: string | undefined) => boolean;

function parseHost(value: string): URL | undefined {
  try {
    return new URL(`http://${value.trim().toLowerCase()}`);
  } catch {
    return undefined;
  }
}

export function createHostPolicy(
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[] = [],
): HostPolicy {
  const entries = allowedHosts.map((h) => h.trim().toLowerCase()).filter(Boolean);
  const any = entries.includes("*");
  const names = new Set<string>();
  const hostsWithPort = new Set<string>();
  for (const entry of entries) {
    const url = parseHost(entry);
    if (url === undefined) continue;
    if (/:\d+$/.test(entry)) hostsWithPort.add(url.host);
    else names.add(url.hostname);
  }
  for (const origin of allowedOrigins) {
    try {
      hostsWithPort.add(new URL(origin.trim().toLowerCase()).host);
    } catch {
      // `*` and other non-URLs name no host.
    }
  }
  return (host) => {
    if (any) return true;
    if (host === undefined || host === "") return false;
    const url = parseHost(host);
    if (url === undefined || url.username || url.pathname !== "/" || url.search || url.hash) return false;
    const hostname = url.hostname;
    if (loopbackHosts.has(hostname) || isIpLiteral(hostname)) return true;
    return names.has(hostname) || hostsWithPort.has(url.host);
  };
}

function isIpLiteral(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || (hostname.startsWith("[") && hostname.endsWith("]"));
}
