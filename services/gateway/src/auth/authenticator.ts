import { type ApiKeyRecord, CairnError, type Principal } from "@cairn/contracts";
import { reportOutage } from "@cairn/service-runtime";
import type { Logger } from "@cairn/telemetry";
import type pg from "pg";
import { hashApiKey } from "./api-key-secret.ts";
import { findActiveApiKey, principalOf } from "./api-key-store.ts";

export type AuthenticatedKey = { keyId: string; principal: Principal; record: ApiKeyRecord };

export type Authenticator = {
  /**
   * Resolves the `Authorization` header to a key; throws `unauthenticated` otherwise, and
   * `unavailable` when the key store cannot be reached and the key is not known from before.
   */
  authenticate(authorization: string | undefined): Promise<AuthenticatedKey>;
  /** The key of the header when it was confirmed within `cacheMs` (no lookup); else undefined. */
  known(authorization: string | undefined): AuthenticatedKey | undefined;
  /** Forgets every cached key (a revocation is otherwise seen within `cacheMs`). */
  clear(): void;
};

export type AuthenticatorOptions = {
  /** How long a looked-up key (or a miss) is trusted before Postgres is asked again. */
  cacheMs: number;
  /**
   * How long after its last check a known key is still accepted while Postgres cannot be
   * reached (default one hour): an outage of the key store does not lock out the agents
   * whose requests the other parts can serve.
   */
  staleMs?: number;
  maxEntries?: number;
  logger?: Logger | undefined;
};

type CacheEntry = { key: AuthenticatedKey | undefined; checkedAt: number; expiresAt: number };

export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

const storeName = "the API key store (Postgres)";

/**
 * Checks Bearer keys against the `api_keys` table, caching answers briefly so a busy agent
 * does not cost a query per request. Misses are cached for a shorter time. When the table
 * cannot be read, a key it confirmed within `staleMs` still passes; any other key is refused
 * with `unavailable` (a 503 to retry), never as unknown.
 */
export function createAuthenticator(
  pool: Pick<pg.Pool, "query">,
  options: AuthenticatorOptions,
): Authenticator {
  const cache = new Map<string, CacheEntry>();
  const maxEntries = options.maxEntries ?? 10_000;
  const missMs = Math.min(options.cacheMs, 1000);
  const staleMs = options.staleMs ?? 60 * 60_000;
  // Logged when the store stops and starts answering, not on every request in between.
  let storeDown = false;

  async function lookUp(hash: string, now: number, cached: CacheEntry | undefined): Promise<CacheEntry> {
    let record: ApiKeyRecord | undefined;
    try {
      record = await reportOutage(storeName, () => findActiveApiKey(pool, hash), "retry in a few seconds");
    } catch (error) {
      if (!(error instanceof CairnError) || error.code !== "unavailable") throw error;
      if (!storeDown) options.logger?.warn({ err: error.cause ?? error }, "API key store unreachable");
      storeDown = true;
      if (cached?.key && now - cached.checkedAt <= staleMs) return cached;
      throw error;
    }
    if (storeDown) options.logger?.info("API key store reachable again");
    storeDown = false;
    const key = record ? { keyId: record.id, principal: principalOf(record), record } : undefined;
    const entry = { key, checkedAt: now, expiresAt: now + (key ? options.cacheMs : missMs) };
    if (cache.size >= maxEntries) cache.clear();
    cache.set(hash, entry);
    return entry;
  }

  return {
    async authenticate(authorization) {
      const token = bearerToken(authorization);
      if (!token) {
        throw new CairnError("unauthenticated", "an API key is required", {
          hint: "send the header `Authorization: Bearer <key>`; create a key with `pnpm cairn keys create`",
        });
      }
      const hash = hashApiKey(token);
      const now = Date.now();
      const cached = cache.get(hash);
      const entry = cached && cached.expiresAt > now ? cached : await lookUp(hash, now, cached);
      if (!entry.key) {
        throw new CairnError("unauthenticated", "the API key is unknown or revoked", {
          hint: "check the key, or ask an admin for a new one",
        });
      }
      return entry.key;
    },
    known(authorization) {
      const token = bearerToken(authorization);
      if (!token) return undefined;
      const cached = cache.get(hashApiKey(token));
      return cached && cached.expiresAt > Date.now() ? cached.key : undefined;
    },
    clear() {
      cache.clear();
    },
  };
}
